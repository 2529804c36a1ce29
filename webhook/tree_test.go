package webhook

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	compute "github.com/armature-dev/armature/generated/apis/compute/v20240301"
	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
)

func TestSplitPath(t *testing.T) {
	cases := map[string]struct {
		path string
		want []string
	}{
		"Plain":       {"location", []string{"location"}},
		"Nested":      {"properties.encryption.keySource", []string{"properties", "encryption", "keySource"}},
		"ArrayItems":  {"properties.networkAcls.ipRules[*].value", []string{"properties", "networkAcls", "ipRules", "[*]", "value"}},
		"MapValues":   {"identity.userAssignedIdentities.*.principalId", []string{"identity", "userAssignedIdentities", "*", "principalId"}},
		"NestedArray": {"a[*][*].b", []string{"a", "[*]", "[*]", "b"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, splitPath(tc.path)); diff != "" {
				t.Errorf("splitPath(%q) -want +got:\n%s", tc.path, diff)
			}
		})
	}
}

// TestTreeFlags checks the summary flags that let walks skip subtrees, on
// real Descriptors.
func TestTreeFlags(t *testing.T) {
	sa := buildTree(&storage.StorageAccountDescriptor)
	vmss := buildTree(&compute.VirtualMachineScaleSetDescriptor)
	type flags struct{ CreateOnly, ReadOnly, Secret, SecretRef bool }
	of := func(n *node, segs ...string) flags {
		for _, s := range segs {
			n = n.children[s]
			if n == nil {
				t.Fatalf("no node %v", segs)
			}
		}
		return flags{n.createOnlyBelow, n.readOnlyBelow, n.secretBelow, n.secretRef}
	}
	got := map[string]flags{
		"sa.tags":                of(sa, "tags"),
		"sa.properties":          of(sa, "properties"),
		"sa.identity":            of(sa, "identity"),
		"vmss.osProfile":         of(vmss, "properties", "virtualMachineProfile", "osProfile"),
		"vmss.adminPassword":     of(vmss, "properties", "virtualMachineProfile", "osProfile", "adminPassword"),
		"vmss.nicItems":          of(vmss, "properties", "virtualMachineProfile", "networkProfile", "networkInterfaceConfigurations", "[*]"),
		"vmss.extensionSettings": of(vmss, "properties", "virtualMachineProfile", "extensionProfile"),
	}
	want := map[string]flags{
		"sa.tags":                {},
		"sa.properties":          {CreateOnly: true, ReadOnly: true},
		"sa.identity":            {ReadOnly: true},
		"vmss.osProfile":         {CreateOnly: true, Secret: true},
		"vmss.adminPassword":     {Secret: true, SecretRef: true},
		"vmss.nicItems":          {CreateOnly: true},
		"vmss.extensionSettings": {ReadOnly: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}

func TestARMType(t *testing.T) {
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
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := armType(tc.id)
			if tc.wantErr {
				if !errors.Is(err, errNotARMID) {
					t.Errorf("armType(%q) = %q, %v; want an errNotARMID", tc.id, got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("armType(%q) -want +got:\n%s", tc.id, diff)
			}
		})
	}
}
