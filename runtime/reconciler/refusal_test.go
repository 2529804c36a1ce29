package reconciler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/runtime/descriptor"
)

func refusalDescriptor() *descriptor.Descriptor {
	p := descriptor.MustParsePath
	return &descriptor.Descriptor{Kind: "ManagedCluster", Properties: []descriptor.Property{
		{Path: p("location"), Class: descriptor.CreateOnly},
		{Path: p("properties"), Class: descriptor.Writable},
		{Path: p("properties.dnsPrefix"), Class: descriptor.Writable},
		{Path: p("properties.osProfile"), Class: descriptor.Writable},
		{Path: p("properties.osProfile.windowsConfiguration"), Class: descriptor.Writable},
		{Path: p("properties.osProfile.windowsConfiguration.additionalUnattendContent"), Class: descriptor.Writable},
		{Path: p("properties.principalId"), Class: descriptor.Writable},
		{Path: p("properties.roleDefinitionId"), Class: descriptor.Writable},
	}}
}

// TestRefusedPaths: the property a create-only refusal names, in ARM's
// spelling, becomes a path from the body root; without one, the paths the
// write changed.
func TestRefusedPaths(t *testing.T) {
	d := refusalDescriptor()
	cases := map[string]struct {
		reason   string
		property string
		write    *pendingWrite
		want     []string
	}{
		"FromRoot":      {reason: "the emulator's target is from the body root", property: "properties.dnsPrefix", want: []string{"properties.dnsPrefix"}},
		"BelowProps":    {reason: "AKS's target is below properties", property: "dnsPrefix", want: []string{"properties.dnsPrefix"}},
		"Location":      {reason: "a row's own property", property: "location", want: []string{"location"}},
		"NestedChanged": {reason: "a target relative to a nested object matches the changed path it ends", property: "windowsConfiguration.additionalUnattendContent", write: &pendingWrite{last: `{"properties":{"osProfile":{"windowsConfiguration":{"additionalUnattendContent":"a"}}}}`, applied: `{"properties":{"osProfile":{"windowsConfiguration":{"additionalUnattendContent":"b"}}}}`}, want: []string{"properties.osProfile.windowsConfiguration.additionalUnattendContent"}},
		"Unknown":       {reason: "a property the table does not know is shown as ARM says it", property: "somethingElse", want: []string{"somethingElse"}},
		"Changed":       {reason: "no property named: what the write changed", write: &pendingWrite{last: `{"properties":{"principalId":"a","roleDefinitionId":"r"}}`, applied: `{"properties":{"principalId":"b","roleDefinitionId":"r2"}}`}, want: []string{"properties.principalId", "properties.roleDefinitionId"}},
		"Create":        {reason: "nothing applied before: nothing changed", write: &pendingWrite{applied: `{"location":"x"}`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := refusedPaths(d, tc.property, tc.write.changed())
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want +got\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCreateOnlyMessage: the condition names the spec path, says it is
// create-only in Azure, how to recover, the override that makes admission
// refuse such edits (unless armature classes it createOnly already), then
// ARM's words.
func TestCreateOnlyMessage(t *testing.T) {
	d := refusalDescriptor()
	cases := map[string]struct {
		reason string
		paths  []string
		want   string
	}{
		"One": {
			reason: "the example of issue 26",
			paths:  []string{"properties.dnsPrefix"},
			want:   "Azure refuses to change spec.properties.dnsPrefix of an existing ManagedCluster: it is create-only in Azure. Restore the previous value, or delete and recreate the object; to have admission refuse such edits, add to specs/armature.yaml: {kind: ManagedCluster, path: properties.dnsPrefix, class: createOnly, because: …}. ARM: Changing property 'dnsPrefix' is not allowed. (target dnsPrefix)",
		},
		"AlreadyCreateOnly": {
			reason: "armature classes location createOnly: no override to suggest",
			paths:  []string{"location"},
			want:   "Azure refuses to change spec.location of an existing ManagedCluster: it is create-only in Azure. Restore the previous value, or delete and recreate the object; armature classes it createOnly too: the admission webhook and the CRD's CEL rule refuse such edits where they are installed. ARM: Changing property 'dnsPrefix' is not allowed. (target dnsPrefix)",
		},
		"Several": {
			reason: "ARM named none; the write changed two",
			paths:  []string{"properties.principalId", "properties.roleDefinitionId"},
			want:   "Azure refuses to change one of spec.properties.principalId, spec.properties.roleDefinitionId (what this write changed) of an existing ManagedCluster: it is create-only in Azure. Restore the previous value, or delete and recreate the object; to have admission refuse such edits, add to specs/armature.yaml: {kind: ManagedCluster, path: <the path Azure refuses>, class: createOnly, because: …}. ARM: Changing property 'dnsPrefix' is not allowed. (target dnsPrefix)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := createOnlyMessage(d, tc.paths, "Changing property 'dnsPrefix' is not allowed. (target dnsPrefix)")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want +got\n%s", tc.reason, diff)
			}
		})
	}
	if got := createOnlyMessage(d, nil, ""); !strings.Contains(got, "sets only at create") {
		t.Errorf("no path: %q", got)
	}
}
