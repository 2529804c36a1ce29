package fakearm_test

import (
	"net/http"
	"testing"

	"github.com/armature-dev/armature/fakearm"
)

// TestReferenceNotFound (issue 28.1): a web site PUT naming a plan that
// does not exist in its group answers the profile's referenceNotFound
// (recorded: 404 NotFound, "Cannot find serverFarm …"); once the plan
// exists the same PUT creates the site. An id in a group the emulator
// does not hold is not checked.
func TestReferenceNotFound(t *testing.T) {
	const webAPI = "2023-12-01"
	e := start(t, fakearm.StartOptions{})
	e.resourceGroup()
	plan := rg + "/providers/Microsoft.Web/serverfarms/plan01"
	site := rg + "/providers/Microsoft.Web/sites/site01"
	body := map[string]any{"location": "westeurope", "properties": map[string]any{"serverFarmId": plan}}
	resp := e.do(http.MethodPut, site, webAPI, body)
	if code, _ := armCode(t, resp); resp.StatusCode != http.StatusNotFound || code != "NotFound" {
		t.Fatalf("PUT before the plan: %d %s, want 404 NotFound", resp.StatusCode, code)
	}
	if resp := e.do(http.MethodPut, plan, webAPI, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "B1"}}); resp.StatusCode >= 300 {
		t.Fatalf("plan: %d", resp.StatusCode)
	}
	if resp := e.do(http.MethodPut, site, webAPI, body); resp.StatusCode >= 300 {
		t.Errorf("PUT after the plan: %d, want it created", resp.StatusCode)
	}
	other := map[string]any{"location": "westeurope", "properties": map[string]any{"serverFarmId": sub + "/resourceGroups/elsewhere/providers/Microsoft.Web/serverfarms/p"}}
	if resp := e.do(http.MethodPut, rg+"/providers/Microsoft.Web/sites/site02", webAPI, other); resp.StatusCode >= 300 {
		t.Errorf("a plan in a group the emulator does not hold: %d, want the site created", resp.StatusCode)
	}
}
