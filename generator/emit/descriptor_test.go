package emit

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestTableEntriesStopAtReadOnly: below a readOnly property the paths
// through an array or a map are left out, the others kept.
func TestTableEntriesStopAtReadOnly(t *testing.T) {
	e := func(class descriptor.Class, p ...string) classify.Entry {
		return classify.Entry{Path: descriptor.Path(p), Class: class}
	}
	in := []classify.Entry{
		e(descriptor.Writable, "properties"),
		e(descriptor.Writable, "properties", "subnets", descriptor.Items, "name"),
		e(descriptor.ReadOnly, "properties", "ipConfigurations"),
		e(descriptor.ReadOnly, "properties", "ipConfigurations", descriptor.Items, "id"),
		e(descriptor.ReadOnly, "properties", "ipConfigurations", descriptor.Items, "properties", "subnet", "id"),
		e(descriptor.ReadOnly, "properties", "state"),
		e(descriptor.ReadOnly, "properties", "state", "code"),
	}
	var got []string
	for _, x := range tableEntries(in) {
		got = append(got, x.Path.String())
	}
	want := []string{"properties", "properties.subnets[*].name", "properties.ipConfigurations", "properties.state", "properties.state.code"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}
