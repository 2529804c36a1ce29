package main

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRunSmall(t *testing.T) {
	tbl, err := run("testdata/small", "test", func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	want := []resourceFacts{{
		Resource: "azurerm_widget", ARMType: "Microsoft.Example/widgets", APIVersion: "2024-01-01",
		File: "internal/services/widget/widget_resource.go",
		Facts: []fact{
			{Attribute: "location", Path: "location", Fact: factForceNew, Line: 15},
			// A block's ForceNew is its count's.
			{Attribute: "part", Path: "properties.parts", Fact: factConditional, Line: 17,
				Condition: "adding or removing the block (a block's ForceNew applies to its count; a change inside follows the nested attributes) at internal/services/widget/widget_resource.go:17"},
			{Attribute: "size", Path: "properties.size", Fact: factConditional, Line: 16,
				Condition: "CustomizeDiff ForceNewIfChange at internal/services/widget/widget_resource.go:29"},
		},
		Unmapped: []unmapped{
			{Attribute: "note", Line: 25, Reason: "not read by the create/update code followed (no assignment to an SDK model found)"},
			// Update acts only on what its HasChanges call names.
			{Attribute: "part.colour", Line: 22, Reason: "not ForceNew, but Update changes only the attributes its HasChange calls name, and none names part"},
		},
	}}
	if diff := cmp.Diff(want, tbl.Resources); diff != "" {
		t.Errorf("run(testdata/small): -want +got:\n%s", diff)
	}
}

// TestRunAzurerm checks well-known facts against a real checkout, given in
// AZURERM_DIR (hack/terraform-facts.sh shows how to get one).
func TestRunAzurerm(t *testing.T) {
	dir := os.Getenv("AZURERM_DIR")
	if dir == "" {
		t.Skip("AZURERM_DIR is not set: no terraform-provider-azurerm checkout to read")
	}
	tbl, err := run(dir, defaultCommit, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	has := func(res, attr, path, kind string) bool {
		for _, r := range tbl.Resources {
			for _, f := range r.Facts {
				if r.Resource == res && f.Attribute == attr && f.Path == path && f.Fact == kind {
					return true
				}
			}
		}
		return false
	}
	cases := map[string]struct{ res, attr, path, kind string }{
		"vnet location":  {"azurerm_virtual_network", "location", "location", factForceNew},
		"aks dns_prefix": {"azurerm_kubernetes_cluster", "dns_prefix", "properties.dnsPrefix", factForceNew},
		"storage tier":   {"azurerm_storage_account", "account_tier", "sku.tier", factForceNew},
	}
	for name, c := range cases {
		if !has(c.res, c.attr, c.path, c.kind) {
			t.Errorf("%s: no %s fact %s → %s", name, c.kind, c.attr, c.path)
		}
	}
}
