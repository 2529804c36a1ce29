package reconciler

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestDecideIgnored: ignored paths go with the create only; a change there
// alone is no write; inside an array item (replaced whole by a merge
// patch) the live value is sent, and the live body is asked for when
// missing; drift there is reported in Write.Ignored.
func TestDecideIgnored(t *testing.T) {
	p := descriptor.MustParsePath
	d := &descriptor.Descriptor{Kind: "ManagedCluster", Verbs: []string{http.MethodGet, http.MethodPut, http.MethodPatch}, Properties: []descriptor.Property{
		{Path: p("properties"), Class: descriptor.Writable},
		{Path: p("properties.agentPoolProfiles"), Class: descriptor.Writable},
		{Path: p("properties.agentPoolProfiles[*].count"), Class: descriptor.Writable},
		{Path: p("properties.agentPoolProfiles[*].name"), Class: descriptor.Writable},
		{Path: p("properties.agentPoolProfiles[*].vmSize"), Class: descriptor.Writable},
		{Path: p("properties.kubernetesVersion"), Class: descriptor.Writable},
		{Path: p("tags"), Class: descriptor.Writable},
	}}
	ign := ignored{p("properties.agentPoolProfiles[*].count"), p("tags")}
	body := func(count float64, size, version string, tags map[string]any) map[string]any {
		return map[string]any{"properties": map[string]any{
			"kubernetesVersion": version,
			"agentPoolProfiles": []any{map[string]any{"name": "system", "count": count, "vmSize": size}},
		}, "tags": tags}
	}
	last := mustJSON(body(3, "D2", "1.30", map[string]any{"a": "1"}))
	live := body(7, "D2", "1.30", map[string]any{"a": "1", "policy": "x"})
	cases := map[string]struct {
		reason        string
		desired, live map[string]any
		last          string
		want          Write
	}{
		"Create": {
			reason:  "the create sends everything",
			desired: body(3, "D2", "1.30", map[string]any{"a": "1"}),
			want:    Write{Verb: http.MethodPut, Create: true, Reason: WhyCreate, Body: body(3, "D2", "1.30", map[string]any{"a": "1"})},
		},
		"IgnoredSpecEdit": {
			reason:  "count and tags edited in spec only: no write",
			desired: body(5, "D2", "1.30", map[string]any{"a": "2"}), last: last, live: live,
			want: Write{Reason: WhyInSync, Ignored: []string{"properties.agentPoolProfiles[*].count", "tags"}},
		},
		"ArrayKeepsLive": {
			reason:  "vmSize changes: the array goes whole, with the live count",
			desired: body(5, "D4", "1.30", map[string]any{"a": "1"}), last: last, live: live,
			want: Write{Verb: http.MethodPatch, Reason: WhyChanged, Ignored: []string{"properties.agentPoolProfiles[*].count", "tags"},
				Body: map[string]any{"properties": map[string]any{"agentPoolProfiles": []any{map[string]any{"name": "system", "count": float64(7), "vmSize": "D4"}}}}},
		},
		"ArrayNeedsLive": {
			reason:  "without the live body the count is unknown: read it",
			desired: body(5, "D4", "1.30", map[string]any{"a": "1"}), last: last,
			want: Write{Reason: WhyChanged, NeedLive: true},
		},
		"ObjectLeftOut": {
			reason:  "kubernetesVersion changes: the PATCH names no tags",
			desired: body(3, "D2", "1.31", map[string]any{"a": "2"}), last: last, live: live,
			want: Write{Verb: http.MethodPatch, Reason: WhyChanged, Ignored: []string{"properties.agentPoolProfiles[*].count", "tags"},
				Body: map[string]any{"properties": map[string]any{"kubernetesVersion": "1.31"}}},
		},
		"DriftOnlyIgnored": {
			reason:  "last-applied dropped: Azure differs only at ignored paths: in sync",
			desired: body(3, "D2", "1.30", map[string]any{"a": "1"}), live: live,
			want: Write{Reason: WhyInSync, Ignored: []string{"properties.agentPoolProfiles[*].count", "tags"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := decideWith(d, tc.desired, tc.last, tc.live, hash, ign)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want +got\n%s", tc.reason, diff)
			}
		})
	}
}

// TestIgnoredMask: masking takes every item's and every value's member out.
func TestIgnoredMask(t *testing.T) {
	ign := ignored{descriptor.MustParsePath("a[*].b"), descriptor.MustParsePath("m.*.x")}
	in := map[string]any{"a": []any{map[string]any{"b": int64(1), "c": int64(2)}, map[string]any{"b": int64(3)}}, "m": map[string]any{"k": map[string]any{"x": int64(1), "y": int64(2)}}}
	want := map[string]any{"a": []any{map[string]any{"c": int64(2)}, map[string]any{}}, "m": map[string]any{"k": map[string]any{"y": int64(2)}}}
	if diff := cmp.Diff(want, ign.mask(in)); diff != "" {
		t.Errorf("-want +got\n%s", diff)
	}
	if _, ok := in["a"].([]any)[0].(map[string]any)["b"]; !ok {
		t.Error("mask changed its input")
	}
}
