package descriptor

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTypeOf(t *testing.T) {
	cases := map[string]struct {
		id      string
		want    string
		wantErr bool
	}{
		"Subscription":    {id: "/subscriptions/s", want: "Microsoft.Resources/subscriptions"},
		"ResourceGroup":   {id: "/subscriptions/s/resourcegroups/g", want: "Microsoft.Resources/resourceGroups"},
		"Resource":        {id: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/a", want: "Microsoft.Storage/storageAccounts"},
		"Child":           {id: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/a/blobServices/default/containers/c", want: "Microsoft.Storage/storageAccounts/blobServices/containers"},
		"ManagementGroup": {id: "/providers/Microsoft.Management/managementGroups/m", want: "Microsoft.Management/managementGroups"},
		"Extension":       {id: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/a/providers/Microsoft.Authorization/roleAssignments/r", want: "Microsoft.Authorization/roleAssignments"},
		"TrailingSlash":   {id: "/subscriptions/s/", want: "Microsoft.Resources/subscriptions"},
		"Relative":        {id: "subscriptions/s", wantErr: true},
		"Root":            {id: "/", wantErr: true},
		"NoName":          {id: "/subscriptions/s/resourceGroups", wantErr: true},
		"ProviderNoName":  {id: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts", wantErr: true},
		"ChildNoName":     {id: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/a/blobServices", wantErr: true},
		"Garbage":         {id: "/foo/bar", wantErr: true},
		"EmptySegment":    {id: "/subscriptions//resourceGroups/g", wantErr: true},
		"BelowGroup":      {id: "/subscriptions/s/resourceGroups/g/foo/bar", wantErr: true},
		"BelowSub":        {id: "/subscriptions/s/foo/bar", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := TypeOf(tc.id)
			if tc.wantErr {
				if !errors.Is(err, ErrNotARMID) {
					t.Errorf("TypeOf(%q) = %q, %v; want an ErrNotARMID", tc.id, got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("TypeOf(%q) -want +got:\n%s", tc.id, diff)
			}
		})
	}
}

const (
	sub       = "/subscriptions/s"
	rg        = sub + "/resourceGroups/g"
	account   = rg + "/providers/Microsoft.Storage/storageAccounts/a"
	blobSvc   = account + "/blobServices/default"
	tmplRG    = "/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}"
	tmplAcct  = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Storage/storageAccounts/{accountName}"
	tmplBlob  = tmplAcct + "/blobServices/{BlobServicesName}"
	tmplRole  = "/{scope}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}"
	tmplSubRs = "/subscriptions/{subscriptionId}/providers/Microsoft.Features/features/{name}"
)

var (
	rgDesc   = &Descriptor{Kind: "ResourceGroup", ARMType: "Microsoft.Resources/resourceGroups", PathTemplate: tmplRG, Scope: ScopeSubscription}
	acctDesc = &Descriptor{Kind: "StorageAccount", ARMType: "Microsoft.Storage/storageAccounts", PathTemplate: tmplAcct, Scope: ScopeResourceGroup}
	blobDesc = &Descriptor{Kind: "BlobService", ARMType: "Microsoft.Storage/storageAccounts/blobServices", PathTemplate: tmplBlob, Scope: ScopeResourceGroup, Singleton: "default"}
	roleDesc = &Descriptor{Kind: "RoleAssignment", ARMType: "Microsoft.Authorization/roleAssignments", PathTemplate: tmplRole, Scope: ScopeExtension}
	featDesc = &Descriptor{Kind: "Feature", ARMType: "Microsoft.Features/features", PathTemplate: tmplSubRs, Scope: ScopeSubscription}
)

func TestID(t *testing.T) {
	cases := map[string]struct {
		d           *Descriptor
		scope, name string
		want        string
		parent      string
	}{
		"ResourceGroup":    {rgDesc, sub, "g", rg, ""},
		"TopLevel":         {acctDesc, rg, "a", account, rg},
		"Child":            {blobDesc, account, "default", blobSvc, account},
		"Extension":        {roleDesc, account, "r", account + "/providers/Microsoft.Authorization/roleAssignments/r", account},
		"ExtensionOfGroup": {roleDesc, rg, "r", rg + "/providers/Microsoft.Authorization/roleAssignments/r", rg},
		"Subscription":     {featDesc, sub + "/", "f", sub + "/providers/Microsoft.Features/features/f", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tc.d.ID(tc.scope, tc.name)
			if got != tc.want {
				t.Errorf("ID(%q, %q) = %q, want %q", tc.scope, tc.name, got, tc.want)
			}
			if p := tc.d.ParentID(got); p != tc.parent {
				t.Errorf("ParentID(%q) = %q, want %q", got, p, tc.parent)
			}
			m, ok := tc.d.Template().Match(got)
			if !ok || m.Collection || m.ID != got || m.Names[len(m.Names)-1] != tc.name {
				t.Errorf("the template %s does not match the id it built: %+v, %v", tc.d.PathTemplate, m, ok)
			}
		})
	}
}

func TestTemplateMatch(t *testing.T) {
	cases := map[string]struct {
		tmpl, path string
		want       Match
		miss       bool
	}{
		"Resource":       {tmpl: tmplAcct, path: "/SUBSCRIPTIONS/s/resourcegroups/g/providers/microsoft.storage/STORAGEACCOUNTS/a", want: Match{ID: account, Names: []string{"a"}}},
		"Collection":     {tmpl: tmplAcct, path: rg + "/providers/Microsoft.Storage/storageAccounts", want: Match{ID: rg + "/providers/Microsoft.Storage/storageAccounts", Collection: true}},
		"Child":          {tmpl: tmplBlob, path: blobSvc, want: Match{ID: blobSvc, Names: []string{"a", "default"}}},
		"GroupCasing":    {tmpl: tmplRG, path: rg, want: Match{ID: rg, Names: []string{"g"}}},
		"Extension":      {tmpl: tmplRole, path: account + "/providers/Microsoft.Authorization/roleAssignments/r", want: Match{ID: account + "/providers/Microsoft.Authorization/roleAssignments/r", Scope: account, Names: []string{"r"}}},
		"ExtensionList":  {tmpl: tmplRole, path: rg + "/providers/Microsoft.Authorization/roleAssignments", want: Match{ID: rg + "/providers/Microsoft.Authorization/roleAssignments", Scope: rg, Collection: true}},
		"OtherProvider":  {tmpl: tmplAcct, path: rg + "/providers/Microsoft.KeyVault/vaults/v", miss: true},
		"TooLong":        {tmpl: tmplAcct, path: blobSvc, miss: true},
		"TrailingSlash":  {tmpl: tmplAcct, path: rg + "/providers/Microsoft.Storage/storageAccounts/", want: Match{ID: rg + "/providers/Microsoft.Storage/storageAccounts", Collection: true}},
		"EmptyName":      {tmpl: tmplBlob, path: account + "//blobServices/default", miss: true},
		"ExtensionNoRef": {tmpl: tmplRole, path: "/providers/Microsoft.Authorization/roleAssignments/r", miss: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := ParseTemplate(tc.tmpl).Match(tc.path)
			if ok == tc.miss {
				t.Fatalf("Match(%q) ok = %v, want %v", tc.path, ok, !tc.miss)
			}
			if diff := cmp.Diff(tc.want, got); !tc.miss && diff != "" {
				t.Errorf("Match(%q) -want +got:\n%s", tc.path, diff)
			}
		})
	}
}

func TestFind(t *testing.T) {
	descs := []*Descriptor{rgDesc, acctDesc, blobDesc, roleDesc}
	for id, want := range map[string]*Descriptor{
		rg:      rgDesc,
		account: acctDesc,
		blobSvc: blobDesc,
		account + "/providers/Microsoft.Authorization/roleAssignments/r": roleDesc,
	} {
		if d, _, ok := Find(descs, id); !ok || d != want {
			t.Errorf("Find(%q) = %v, want %s", id, d, want.Kind)
		}
	}
	if d, _, ok := Find(descs, rg+"/providers/Microsoft.Storage/storageAccounts"); ok {
		t.Errorf("Find of a collection path = %s, want no match", d.Kind)
	}
}
