package emit

import (
	"strings"
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

// TestBelowOpen: the entries below a free-form JSON field of the spec (a
// polymorphic value) are left out of the Descriptor, so that it accepts
// every variant as the CRD does; the field itself and its siblings stay.
func TestBelowOpen(t *testing.T) {
	e := func(p string) classify.Entry { return classify.Entry{Path: descriptor.MustParsePath(p)} }
	entries := []classify.Entry{e("properties"), e("properties.actions[*].parameters"), e("properties.actions[*].parameters.cacheType"), e("properties.actions[*].name"), e("properties.parametersExtra")}
	got := belowOpen(entries, []descriptor.Path{descriptor.MustParsePath("properties.actions[*].parameters")})
	var paths []string
	for _, x := range got {
		paths = append(paths, x.Path.String())
	}
	if want := "properties properties.actions[*].parameters properties.actions[*].name properties.parametersExtra"; strings.Join(paths, " ") != want {
		t.Errorf("belowOpen = %v, want %s", paths, want)
	}
}
