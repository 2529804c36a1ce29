package webhook

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestValidateReferences: a reference names kind and name, never beside
// the field it stands for, and only a kind the field may hold. Each case
// fails when the check it names is removed.
func TestValidateReferences(t *testing.T) {
	d := &descriptor.Descriptor{
		Group: "test.armature.dev", Version: "v1", Kind: "Nic", ARMType: "Test.RP/nics",
		Verbs: []string{"GET", "PUT", "DELETE"}, OwnerARMType: "Microsoft.Resources/resourceGroups",
		Properties: []descriptor.Property{
			{Path: descriptor.P("identity"), Class: descriptor.Writable},
			{Path: descriptor.P("identity", "userAssignedIdentities"), Class: descriptor.Writable},
			{Path: descriptor.P("properties"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "ipConfigurations"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "ipConfigurations", descriptor.Items, "subnet"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "ipConfigurations", descriptor.Items, "subnet", "id"), Class: descriptor.Writable},
		},
		References: []descriptor.Reference{
			{Path: descriptor.P("identity", "userAssignedIdentities"), Map: true},
			{Path: descriptor.P("properties", "ipConfigurations", descriptor.Items, "subnet", "id"), Targets: []string{"network.azure.armature.dev/Subnet"}},
		},
	}
	k := &kind{d: d, tree: buildTree(d)}
	cases := map[string]struct {
		spec string
		want []string
	}{
		"ByRef":        {spec: `{"properties":{"ipConfigurations":[{"subnet":{"idRef":{"kind":"Subnet","name":"default"}}}]}}`},
		"ByID":         {spec: `{"properties":{"ipConfigurations":[{"subnet":{"id":"/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/v/subnets/default"}}]}}`},
		"WithGroup":    {spec: `{"properties":{"ipConfigurations":[{"subnet":{"idRef":{"group":"network.azure.armature.dev","kind":"Subnet","name":"default"}}}]}}`},
		"MapRefsAnyOk": {spec: `{"identity":{"userAssignedIdentitiesRefs":[{"kind":"UserAssignedIdentity","name":"app"}]}}`},
		"Both": {
			spec: `{"properties":{"ipConfigurations":[{},{"subnet":{"id":"/x","idRef":{"kind":"Subnet","name":"default"}}}]}}`,
			want: []string{`spec.properties.ipConfigurations[1].subnet.idRef: Invalid value: "": set one of spec.properties.ipConfigurations[1].subnet.id and spec.properties.ipConfigurations[1].subnet.idRef, not both`},
		},
		"KindNotAllowed": {
			spec: `{"properties":{"ipConfigurations":[{"subnet":{"idRef":{"kind":"VirtualNetwork","name":"v"}}}]}}`,
			want: []string{`spec.properties.ipConfigurations[0].subnet.idRef.kind: Invalid value: "VirtualNetwork": a VirtualNetwork cannot be named here; allowed: network.azure.armature.dev/Subnet`},
		},
		"GroupNotAllowed": {
			spec: `{"properties":{"ipConfigurations":[{"subnet":{"idRef":{"group":"other.azure.armature.dev","kind":"Subnet","name":"v"}}}]}}`,
			want: []string{`spec.properties.ipConfigurations[0].subnet.idRef.kind: Invalid value: "Subnet": a Subnet cannot be named here; allowed: network.azure.armature.dev/Subnet`},
		},
		"NoName": {
			spec: `{"properties":{"ipConfigurations":[{"subnet":{"idRef":{"kind":"Subnet"}}}]}}`,
			want: []string{`spec.properties.ipConfigurations[0].subnet.idRef: Invalid value: {"kind":"Subnet"}: must be {kind: <Kind>, name: <object in this namespace>} (group optional)`},
		},
		"MapRefsNotAList": {
			spec: `{"identity":{"userAssignedIdentitiesRefs":{"kind":"UserAssignedIdentity","name":"app"}}}`,
			want: []string{`spec.identity.userAssignedIdentitiesRefs: Invalid value: {"kind":"UserAssignedIdentity","name":"app"}: must be a list of {kind: <Kind>, name: <object in this namespace>} (group optional)`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var spec map[string]any
			if err := json.Unmarshal([]byte(tc.spec), &spec); err != nil {
				t.Fatal(err)
			}
			spec["owner"] = map[string]any{"armId": "/subscriptions/s/resourceGroups/g"}
			obj := map[string]any{"metadata": map[string]any{"name": "nic"}, "spec": spec}
			var got []string
			for _, e := range k.validate(admissionv1.Create, obj, nil) {
				got = append(got, e.Error())
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCreateOnlyReference: the reference of a create-only field is
// create-only too.
func TestCreateOnlyReference(t *testing.T) {
	d := &descriptor.Descriptor{
		Group: "test.armature.dev", Version: "v1", Kind: "Pool", ARMType: "Test.RP/pools",
		Verbs: []string{"GET", "PUT", "DELETE"}, OwnerARMType: "Microsoft.Resources/resourceGroups",
		Properties: []descriptor.Property{
			{Path: descriptor.P("properties"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "vnetSubnetID"), Class: descriptor.CreateOnly},
		},
		References: []descriptor.Reference{{Path: descriptor.P("properties", "vnetSubnetID")}},
	}
	k := &kind{d: d, tree: buildTree(d)}
	obj := func(subnet string) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": "p"}, "spec": map[string]any{
			"owner":      map[string]any{"armId": "/subscriptions/s/resourceGroups/g"},
			"properties": map[string]any{"vnetSubnetIDRef": map[string]any{"kind": "Subnet", "name": subnet}},
		}}
	}
	errs := k.validate(admissionv1.Update, obj("b"), obj("a"))
	if len(errs) != 1 || errs[0].Field != "spec.properties.vnetSubnetIDRef" || errs[0].Type != "FieldValueForbidden" {
		t.Fatalf("errors %v, want one Forbidden at spec.properties.vnetSubnetIDRef", errs)
	}
	if errs := k.validate(admissionv1.Update, obj("a"), obj("a")); len(errs) != 0 {
		t.Errorf("unchanged: %v", errs)
	}
}

// TestRequiredReference: a field the swagger requires is set, or given by
// its reference.
func TestRequiredReference(t *testing.T) {
	d := &descriptor.Descriptor{
		Group: "test.armature.dev", Version: "v1", Kind: "Site", ARMType: "Test.RP/sites",
		Verbs: []string{"GET", "PUT", "DELETE"}, OwnerARMType: "Microsoft.Resources/resourceGroups",
		Properties: []descriptor.Property{
			{Path: descriptor.P("properties"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "serverFarmId"), Class: descriptor.Writable, Required: true},
		},
		References: []descriptor.Reference{{Path: descriptor.P("properties", "serverFarmId"), Required: true}},
	}
	k := &kind{d: d, tree: buildTree(d)}
	obj := func(props map[string]any) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": "s"}, "spec": map[string]any{
			"owner": map[string]any{"armId": "/subscriptions/s/resourceGroups/g"}, "properties": props,
		}}
	}
	errs := k.validate(admissionv1.Create, obj(map[string]any{"httpsOnly": true}), nil)
	if len(errs) != 1 || errs[0].Field != "spec.properties.serverFarmId" || errs[0].Type != "FieldValueRequired" {
		t.Fatalf("errors %v, want serverFarmId required", errs)
	}
	for _, p := range []map[string]any{{"serverFarmId": "/x"}, {"serverFarmIdRef": map[string]any{"kind": "ServerFarm", "name": "plan"}}} {
		if errs := k.validate(admissionv1.Create, obj(p), nil); len(errs) != 0 {
			t.Errorf("%v: %v", p, errs)
		}
	}
}
