package reconciler_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/runtime/reconciler"
)

const networkAPI = "network.azure.armature.dev/v20240101"

// TestReferencesAndDeleteOrder: a NetworkInterface names its Subnet by
// reference and is applied first: it waits (WaitingForReference, nothing
// sent), then sends the subnet's ARM id once the subnet has one. Deleted
// all at once, the subnet's DELETE waits for the interface's
// (WaitingForDependents), and nothing is left in ARM.
func TestReferencesAndDeleteOrder(t *testing.T) {
	fa := startARM(t, 2)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	nic := cr("NetworkInterface", networkAPI, ns, "app-nic", map[string]any{
		"owner": map[string]any{"name": "team-ref"}, "location": "westeurope",
		"properties": map[string]any{"ipConfigurations": []any{map[string]any{
			"name": "ipconfig1",
			"properties": map[string]any{
				"privateIPAllocationMethod": "Dynamic",
				"subnet":                    map[string]any{"idRef": map[string]any{"kind": "VirtualNetworksSubnet", "name": "app-subnet"}},
			},
		}}},
	})
	create(t, nic)
	rg := resourceGroup(ns, "team-ref")
	create(t, rg)
	waitReason(t, nic, "WaitingForReference")
	if _, _, msg := readyReason(get(t, nic)); !strings.Contains(msg, "VirtualNetworksSubnet app-subnet") || !strings.Contains(msg, "spec.properties.ipConfigurations[0].properties.subnet.idRef") {
		t.Errorf("waiting message %q: want the reference's path and target", msg)
	}
	nicID := armID("team-ref", "Microsoft.Network/networkInterfaces/app-nic")
	if n := calls(fa, http.MethodPut, nicID); n != 0 {
		t.Fatalf("%d PUTs of the interface before its subnet exists", n)
	}

	vnet := cr("VirtualNetwork", networkAPI, ns, "app-vnet", map[string]any{
		"owner": map[string]any{"name": "team-ref"}, "location": "westeurope",
		"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}},
	})
	subnet := cr("VirtualNetworksSubnet", networkAPI, ns, "app-subnet", map[string]any{
		"owner": map[string]any{"name": "app-vnet"}, "azureName": "default",
		"properties": map[string]any{"addressPrefix": "10.0.0.0/24"},
	})
	create(t, vnet, subnet)
	start := time.Now()
	waitReady(t, vnet, subnet, nic)
	t.Logf("the interface was Ready %v after its subnet was applied", time.Since(start).Round(time.Millisecond))

	subnetID := armID("team-ref", "Microsoft.Network/virtualNetworks/app-vnet/subnets/default")
	var sent string
	for _, e := range fa.Journal() {
		if e.Method == http.MethodPut && strings.EqualFold(e.Path, nicID) {
			sent = e.Body
		}
	}
	if !strings.Contains(sent, `"id":"`+subnetID+`"`) || strings.Contains(sent, "idRef") {
		t.Errorf("the interface's PUT body %s: want the subnet's id and no ref", sent)
	}

	// Delete everything at once: the subnet waits for the interface.
	fa.ResetJournal()
	for _, o := range []*unstructured.Unstructured{subnet, vnet, nic} {
		if err := k8s.Delete(context.Background(), get(t, o)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 60*time.Second, "the stack is gone from ARM", func() (bool, string) {
		return fa.Resource(nicID) == nil && fa.Resource(subnetID) == nil && fa.Resource(armID("team-ref", "Microsoft.Network/virtualNetworks/app-vnet")) == nil, ""
	})
	var order []string
	for _, e := range fa.Journal() {
		if e.Method == http.MethodDelete && e.Status < 300 {
			order = append(order, e.Path[strings.LastIndex(e.Path, "/")+1:])
		}
		if e.Method == http.MethodDelete && e.Status >= 400 {
			t.Errorf("DELETE %s refused: %d", e.Path, e.Status)
		}
	}
	nicAt, subnetAt := -1, -1
	for i, n := range order {
		switch n {
		case "app-nic":
			nicAt = i
		case "default":
			subnetAt = i
		}
	}
	if nicAt < 0 || subnetAt >= 0 && subnetAt < nicAt {
		t.Errorf("DELETE order %v: the interface goes before its subnet", order)
	}
	t.Logf("DELETE order: %v", order)
}
