package reconciler

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestDeleteOrder: deleted together, an object goes after the objects that
// reference it, read it through valuesFrom, or that it owns; a cycle is
// named.
func TestDeleteOrder(t *testing.T) {
	descs := map[string]*descriptor.Descriptor{
		"NetworkInterface": {Kind: "NetworkInterface", References: []descriptor.Reference{{Path: descriptor.P("properties", "ipConfigurations", descriptor.Items, "properties", "subnet", "id")}}},
		"Subnet":           {Kind: "Subnet", OwnerKind: "VirtualNetwork"},
		"VirtualNetwork":   {Kind: "VirtualNetwork"},
		"RoleAssignment":   {Kind: "RoleAssignment", Scope: descriptor.ScopeExtension},
		"Identity":         {Kind: "Identity"},
		"StorageAccount":   {Kind: "StorageAccount"},
	}
	describe := func(gvk schema.GroupVersionKind) *descriptor.Descriptor { return descs[gvk.Kind] }
	o := func(kind, name string, spec map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "x.armature.dev/v1", "kind": kind, "metadata": map[string]any{"name": name}, "spec": spec}}
		return u
	}
	stack := []*unstructured.Unstructured{
		o("VirtualNetwork", "vnet", map[string]any{}),
		o("Subnet", "app", map[string]any{"owner": map[string]any{"name": "vnet"}}),
		o("NetworkInterface", "nic", map[string]any{"properties": map[string]any{"ipConfigurations": []any{
			map[string]any{"properties": map[string]any{"subnet": map[string]any{"idRef": map[string]any{"kind": "Subnet", "name": "app"}}}},
		}}}),
		o("Identity", "id", map[string]any{}),
		o("StorageAccount", "data", map[string]any{}),
		o("RoleAssignment", "reads", map[string]any{
			"owner":      map[string]any{"kind": "StorageAccount", "name": "data"},
			"valuesFrom": []any{map[string]any{"path": "properties.principalId", "from": map[string]any{"kind": "Identity", "name": "id", "field": "status.properties.principalId"}}},
		}),
		o("Subnet", "other-vnet-s", map[string]any{"owner": map[string]any{"name": "elsewhere"}}), // owner not in the set
	}
	waves, err := DeleteOrder(stack, describe)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range waves {
		var names []string
		for _, s := range w {
			n := s.Kind + " " + s.Name
			if len(s.WaitsFor) > 0 {
				n += " (after " + strings.Join(s.WaitsFor, ", ") + ")"
			}
			names = append(names, n)
		}
		got = append(got, strings.Join(names, "; "))
	}
	want := []string{
		"NetworkInterface nic; RoleAssignment reads; Subnet other-vnet-s",
		"Identity id (after RoleAssignment reads); StorageAccount data (after RoleAssignment reads); Subnet app (after NetworkInterface nic)",
		"VirtualNetwork vnet (after Subnet app)",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("waves\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	cycle := []*unstructured.Unstructured{
		o("Identity", "a", map[string]any{"valuesFrom": []any{map[string]any{"path": "tags.x", "from": map[string]any{"kind": "Identity", "name": "b", "field": "status.id"}}}}),
		o("Identity", "b", map[string]any{"valuesFrom": []any{map[string]any{"path": "tags.x", "from": map[string]any{"kind": "Identity", "name": "a", "field": "status.id"}}}}),
		o("VirtualNetwork", "free", map[string]any{}),
	}
	waves, err = DeleteOrder(cycle, describe)
	if err == nil || !strings.Contains(err.Error(), "a cycle: Identity a, Identity b wait for one another") || len(waves) != 1 {
		t.Errorf("cycle: waves %v, err %v; want the free object's wave and the cycle named", waves, err)
	}
}
