package webhook

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	compute "github.com/armature-dev/armature/generated/apis/compute/v20240301"
	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
)

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
