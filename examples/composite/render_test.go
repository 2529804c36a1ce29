package composite

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/runtime/configurator"
)

// TestRender calls Render alone: what it declares and the status it
// returns for a given selection.
func TestRender(t *testing.T) {
	spec := Spec{ResourceGroup: "rg", StorageAccountName: "acct", ContainerName: "data"}
	ready := []Part{
		{Kind: "StorageAccount", Name: "acct", Exists: true, Ready: true},
		{Kind: "StorageAccountsBlobService", Name: "acct-default", Exists: true, Ready: true},
		{Kind: "StorageAccountsBlobServicesContainer", Name: "acct-data", Exists: true, Ready: true},
	}
	group := Part{Name: "rg", Exists: true, Ready: true}
	cases := map[string]struct {
		reason       string
		sel          configurator.Selected
		wantDeclared []string
		wantReady    bool
		wantSummary  string
	}{
		"NoLocation": {
			reason:      "without a location nothing can be declared yet",
			sel:         configurator.Selected{"spec": spec, "location": "", "resourceGroup": Part{Name: "rg", Reason: "NotFound"}, "resources": ready},
			wantSummary: "waiting for the location of ResourceGroup rg",
		},
		"AllReady": {
			reason: "the three resources, with the owner chain, and a Ready summary",
			sel:    configurator.Selected{"spec": spec, "location": "westeurope", "resourceGroup": group, "resources": ready},
			wantDeclared: []string{
				"storage.azure.armature.dev/v20230501/StorageAccount/acct",
				"storage.azure.armature.dev/v20230501/StorageAccountsBlobService/acct-default",
				"storage.azure.armature.dev/v20230501/StorageAccountsBlobServicesContainer/acct-data",
			},
			wantReady:   true,
			wantSummary: "3/3 ready",
		},
		"GroupNotReady": {
			reason: "the group counts for Ready but not in the resource count",
			sel:    configurator.Selected{"spec": spec, "location": "westeurope", "resourceGroup": Part{Name: "rg", Exists: true, Reason: "Creating"}, "resources": ready},
			wantDeclared: []string{
				"storage.azure.armature.dev/v20230501/StorageAccount/acct",
				"storage.azure.armature.dev/v20230501/StorageAccountsBlobService/acct-default",
				"storage.azure.armature.dev/v20230501/StorageAccountsBlobServicesContainer/acct-data",
			},
			wantSummary: "3/3 ready; waiting for ResourceGroup rg (Creating)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rd := configurator.NewRenderer(configurator.Ref{GroupVersionKind: GVK, Namespace: "ns", Name: "stack"}, scheme)
			st, err := Render(rd, tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			var declared []string
			for _, u := range rd.Declared() {
				declared = append(declared, u.GetAPIVersion()+"/"+u.GetKind()+"/"+u.GetName())
			}
			if diff := cmp.Diff(tc.wantDeclared, declared); diff != "" {
				t.Errorf("%s\ndeclared: -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantReady, st["ready"]); diff != "" {
				t.Errorf("%s\nready: -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantSummary, st["summary"]); diff != "" {
				t.Errorf("%s\nsummary: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
