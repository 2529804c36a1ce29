package descriptor_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	"github.com/armature-dev/armature/runtime/descriptor"
)

func TestGeneratedStorageAccountDescriptor(t *testing.T) {
	d := &storage.StorageAccountDescriptor
	if got := d.GroupVersionKind().String(); got != "storage.azure.armature.dev/v20230501, Kind=StorageAccount" {
		t.Errorf("GVK = %s", got)
	}
	cases := map[string]descriptor.Class{
		"location":                     descriptor.CreateOnly,
		"sku.name":                     descriptor.Writable,
		"properties.primaryEndpoints":  descriptor.ReadOnly,
		"properties.isHnsEnabled":      descriptor.CreateOnly,
		"properties.provisioningState": descriptor.ReadOnly,
	}
	for path, want := range cases {
		got, ok := d.ClassOf(descriptor.MustParsePath(path))
		if !ok || got != want {
			t.Errorf("ClassOf(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
	if _, ok := d.ClassOf(descriptor.MustParsePath("no.such.path")); ok {
		t.Error("unknown paths are not in the table")
	}
	if !d.HasVerb("patch") || d.HasVerb("POST") {
		t.Error("HasVerb: storage accounts have PATCH and no POST on the resource path")
	}
	if d.OwnerGroup != "resources.azure.armature.dev" || d.OwnerKind != "ResourceGroup" {
		t.Errorf("owner = %s/%s", d.OwnerGroup, d.OwnerKind)
	}
	if diff := cmp.Diff([]descriptor.LRO{{Verb: "PUT"}}, d.LongRunning); diff != "" {
		t.Errorf("LongRunning (-want +got):\n%s", diff)
	}
	for i := 1; i < len(d.Properties); i++ {
		if d.Properties[i-1].Path.Compare(d.Properties[i].Path) >= 0 {
			t.Fatalf("Properties must be sorted for ClassOf: %q before %q", d.Properties[i-1].Path, d.Properties[i].Path)
		}
	}
	// extendedLocation (3 paths) and location by the ARM-wide rules;
	// dnsEndpointType, requireInfrastructureEncryption, the queue and
	// table keyType, isHnsEnabled and isNfsV3Enabled by the Terraform
	// facts; the blob and file keyType by x-ms-mutability.
	if n := len(d.PathsOf(descriptor.CreateOnly)); n != 12 {
		t.Errorf("%d createOnly paths, want 12", n)
	}
}

func TestEveryGeneratedPackageRegisters(t *testing.T) {
	if n := len(storage.Descriptors()); n != 16 {
		t.Errorf("storage has %d descriptors, want 16", n)
	}
}
