package fakearm_test

import (
	"net/http"
	"testing"

	"github.com/armature-dev/armature/fakearm"
)

// TestDeleteInUse: a subnet a network interface uses, and its virtual
// network, cannot be deleted until the interface is gone.
func TestDeleteInUse(t *testing.T) {
	e := start(t, fakearm.StartOptions{})
	e.resourceGroup()
	const api = "2024-01-01"
	vnet := rg + "/providers/Microsoft.Network/virtualNetworks/v"
	subnet := vnet + "/subnets/default"
	nic := rg + "/providers/Microsoft.Network/networkInterfaces/n"
	put := func(id string, body map[string]any) {
		t.Helper()
		resp := e.do(http.MethodPut, id, api, body)
		if resp.StatusCode >= 300 {
			t.Fatalf("PUT %s: %d", id, resp.StatusCode)
		}
		if resp.StatusCode == http.StatusCreated && (resp.Header.Get("Azure-AsyncOperation") != "" || resp.Header.Get("Location") != "") {
			e.wait(resp)
		}
	}
	put(vnet, map[string]any{"location": "westeurope", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	put(subnet, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.0.0/24"}})
	put(nic, map[string]any{"location": "westeurope", "properties": map[string]any{"ipConfigurations": []any{map[string]any{
		"name": "ip", "properties": map[string]any{"subnet": map[string]any{"id": subnet}},
	}}}})
	for _, id := range []string{subnet, vnet} {
		resp := e.do(http.MethodDelete, id, api, nil)
		if code, _ := armCode(t, resp); resp.StatusCode != http.StatusBadRequest || code != "InUseSubnetCannotBeDeleted" {
			t.Errorf("DELETE %s while the interface uses the subnet: %d %s", id, resp.StatusCode, code)
		}
	}
	if resp := e.do(http.MethodDelete, nic, api, nil); resp.StatusCode >= 300 && resp.StatusCode != http.StatusAccepted {
		t.Fatalf("DELETE nic: %d", resp.StatusCode)
	} else if resp.StatusCode == http.StatusAccepted {
		e.wait(resp)
	}
	if resp := e.do(http.MethodDelete, subnet, api, nil); resp.StatusCode >= 300 && resp.StatusCode != http.StatusAccepted {
		t.Errorf("DELETE subnet once unused: %d", resp.StatusCode)
	}
}
