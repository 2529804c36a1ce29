package fakearm_test

import (
	"net/http"
	"testing"
)

// TestExtensionResources: an extension resource is served below any scope
// that exists — a resource group, a resource — and answers ARM's 404 when
// its scope does not; deleting the scope deletes it.
func TestExtensionResources(t *testing.T) {
	e := startFabrikam(t)
	e.wait(e.do(http.MethodPut, account, stAPI, accountBody))
	grant := map[string]any{"properties": map[string]any{"principalId": "p1", "role": "Reader"}}
	const ext = "/providers/Microsoft.Fabrikam/grants/g1"
	for _, scope := range []string{rg, account} {
		if resp := e.do(http.MethodPut, scope+ext, fabAPI, grant); resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
			code, _ := armCode(t, resp)
			t.Fatalf("PUT %s: %d %s", scope+ext, resp.StatusCode, code)
		}
		got := decode(t, e.do(http.MethodGet, scope+ext, fabAPI, nil))
		if got["id"] != scope+ext || got["type"] != "Microsoft.Fabrikam/grants" {
			t.Errorf("GET %s: id %v type %v", scope+ext, got["id"], got["type"])
		}
	}
	cases := map[string]struct{ scope, code string }{
		"MissingResource":     {scope: rg + "/providers/Microsoft.Storage/storageAccounts/nosuch", code: "ResourceNotFound"},
		"MissingGroup":        {scope: sub + "/resourceGroups/nosuch/providers/Microsoft.Storage/storageAccounts/media01", code: "ResourceGroupNotFound"},
		"MissingGroupAsScope": {scope: sub + "/resourceGroups/nosuch", code: "ResourceGroupNotFound"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resp := e.do(http.MethodPut, tc.scope+ext, fabAPI, grant)
			code, _ := armCode(t, resp)
			if resp.StatusCode != http.StatusNotFound || code != tc.code {
				t.Errorf("PUT below a missing scope: %d %s, want 404 %s", resp.StatusCode, code, tc.code)
			}
		})
	}
	e.wait(e.do(http.MethodDelete, account, stAPI, nil))
	if resp := e.do(http.MethodGet, account+ext, fabAPI, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET of an extension resource of a deleted resource: %d, want 404", resp.StatusCode)
	}
}
