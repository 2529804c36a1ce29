package reconciler

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// gadget is a small Descriptor: a PATCH that takes everything, a secret, a
// readOnly property.
func gadget() *descriptor.Descriptor {
	return &descriptor.Descriptor{
		Group: "test.armature.dev", Version: "v1", Kind: "Gadget", ARMType: "Test.RP/gadgets",
		Verbs: []string{"GET", "PUT", "PATCH", "DELETE"},
		Properties: []descriptor.Property{
			{Path: descriptor.P("location"), Class: descriptor.CreateOnly},
			{Path: descriptor.P("properties"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "password"), Class: descriptor.Secret},
			{Path: descriptor.P("properties", "provisioningState"), Class: descriptor.ReadOnly},
			{Path: descriptor.P("properties", "tier"), Class: descriptor.Writable},
			{Path: descriptor.P("tags"), Class: descriptor.Writable},
		},
		SecretPaths: []descriptor.Path{descriptor.P("properties", "password")},
	}
}

func TestDecide(t *testing.T) {
	noPatch := gadget()
	noPatch.Verbs = []string{"GET", "PUT", "DELETE"}
	tagsOnly := gadget()
	tagsOnly.PatchTagsOnly = true
	body := func(tier string) map[string]any {
		return map[string]any{"location": "westeurope", "properties": map[string]any{"tier": tier}}
	}
	withSecret := func(pw string) map[string]any {
		b := body("Hot")
		b["properties"].(map[string]any)["password"] = pw
		return b
	}
	withRules := gadget()
	withRules.Properties = append(withRules.Properties,
		descriptor.Property{Path: descriptor.P("properties", "rules"), Class: descriptor.Writable},
		descriptor.Property{Path: descriptor.P("properties", "rules", descriptor.Items, "state"), Class: descriptor.ReadOnly},
		descriptor.Property{Path: descriptor.P("properties", "rules", descriptor.Items, "value"), Class: descriptor.Writable})
	slices.SortFunc(withRules.Properties, func(a, b descriptor.Property) int { return a.Path.Compare(b.Path) })
	applied := func(d *descriptor.Descriptor, b map[string]any) string { return mustJSON(hashSecrets(d, b)) }
	live := map[string]any{"id": "/x", "location": "westeurope", "properties": map[string]any{"tier": "Hot", "provisioningState": "Succeeded", "setElsewhere": true}, "tags": map[string]any{"by": "portal"}}
	cases := map[string]struct {
		reason  string
		d       *descriptor.Descriptor
		desired map[string]any
		last    string
		live    map[string]any
		want    Write
	}{
		"NoChange": {
			reason: "the spec is what was last applied: nothing is sent",
			d:      gadget(), desired: body("Hot"), last: applied(gadget(), body("Hot")),
			want: Write{Reason: WhyInSync},
		},
		"Create": {
			reason: "nothing applied and nothing live: the whole body is PUT",
			d:      gadget(), desired: body("Hot"),
			want: Write{Verb: "PUT", Body: body("Hot"), Create: true, Reason: WhyCreate},
		},
		"Patch": {
			reason: "a changed value goes as the merge patch of the change alone",
			d:      gadget(), desired: body("Cool"), last: applied(gadget(), body("Hot")),
			want: Write{Verb: "PATCH", Body: map[string]any{"properties": map[string]any{"tier": "Cool"}}, Reason: WhyChanged},
		},
		"PatchRemoves": {
			reason: "a value the spec no longer sets is removed with null",
			d:      gadget(), desired: map[string]any{"location": "westeurope"}, last: applied(gadget(), body("Hot")),
			want: Write{Verb: "PATCH", Body: map[string]any{"properties": nil}, Reason: WhyChanged},
		},
		"NoPatchNeedsLive": {
			reason: "without PATCH the change goes through GET + PUT: the live body is asked for",
			d:      noPatch, desired: body("Cool"), last: applied(noPatch, body("Hot")),
			want: Write{Reason: WhyChanged, NeedLive: true},
		},
		"GetPut": {
			reason: "the PUT keeps what others set (setElsewhere, tags) and drops readOnly values",
			d:      noPatch, desired: body("Cool"), last: applied(noPatch, body("Hot")), live: live,
			want: Write{Verb: "PUT", Body: map[string]any{"location": "westeurope", "properties": map[string]any{"tier": "Cool"}, "tags": map[string]any{"by": "portal"}}, Reason: WhyChanged},
		},
		"TagsOnlyPatch": {
			reason: "a PATCH that only takes tags is no PATCH for other changes",
			d:      tagsOnly, desired: body("Cool"), last: applied(tagsOnly, body("Hot")),
			want: Write{Reason: WhyChanged, NeedLive: true},
		},
		"AdoptInSync": {
			reason: "adoption: the live resource already says what the spec says (strings compare as ARM normalises them): no write",
			d:      gadget(), desired: map[string]any{"location": "West Europe", "properties": map[string]any{"tier": "Hot"}}, live: live,
			want: Write{Reason: WhyInSync},
		},
		"AdoptDiffers": {
			reason: "adoption: only the values that differ from the live resource are sent",
			d:      gadget(), desired: map[string]any{"location": "westeurope", "properties": map[string]any{"tier": "Cool"}, "tags": map[string]any{"by": "portal"}}, live: live,
			want: Write{Verb: "PATCH", Body: map[string]any{"properties": map[string]any{"tier": "Cool"}}, Reason: WhyLive + " at properties.tier"},
		},
		"AdoptOpenMapWhole": {
			reason: "adoption: an open object (tags) is compared whole, so the patch also removes the keys the spec does not have (a patch that left them would be followed by the same drift, forever)",
			d:      gadget(), desired: map[string]any{"location": "westeurope", "tags": map[string]any{"team": "a"}}, live: live,
			want: Write{Verb: "PATCH", Body: map[string]any{"tags": map[string]any{"by": nil, "team": "a"}}, Reason: WhyLive + " at tags"},
		},
		"AdoptArrayReadOnlyInItems": {
			reason: "adoption: array items ARM returns with a readOnly member (a rule's state) are compared on what the spec can set: in sync",
			d:      withRules, desired: map[string]any{"properties": map[string]any{"rules": []any{map[string]any{"value": "10.0.0.0/24"}}}},
			live: map[string]any{"properties": map[string]any{"rules": []any{map[string]any{"value": "10.0.0.0/24", "state": "Succeeded", "unknownToTheTable": true}}}},
			want: Write{Reason: WhyInSync},
		},
		"AdoptArrayDiffers": {
			reason: "adoption: an item that differs in a value the spec sets is still a change",
			d:      withRules, desired: map[string]any{"properties": map[string]any{"rules": []any{map[string]any{"value": "10.0.1.0/24"}}}},
			live: map[string]any{"properties": map[string]any{"rules": []any{map[string]any{"value": "10.0.0.0/24", "state": "Succeeded"}}}},
			want: Write{Verb: "PATCH", Body: map[string]any{"properties": map[string]any{"rules": []any{map[string]any{"value": "10.0.1.0/24"}}}}, Reason: WhyLive + " at properties.rules"},
		},
		"SecretUnchanged": {
			reason: "the last-applied body holds the secret's hash: the same value is no change",
			d:      gadget(), desired: withSecret("s3cret"), last: applied(gadget(), withSecret("s3cret")),
			want: Write{Reason: WhyInSync},
		},
		"SecretChanged": {
			reason: "a new secret value is sent as the value, never as its hash",
			d:      gadget(), desired: withSecret("n3w"), last: applied(gadget(), withSecret("s3cret")),
			want: Write{Verb: "PATCH", Body: map[string]any{"properties": map[string]any{"password": "n3w"}}, Reason: WhyChanged},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := decide(tc.d, tc.desired, tc.last, tc.live)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDecideSecretHashNotSent: the annotation holds the hash, never the value.
func TestDecideSecretHashNotSent(t *testing.T) {
	d := gadget()
	b := map[string]any{"properties": map[string]any{"password": "s3cret"}}
	if a := mustJSON(hashSecrets(d, b)); strings.Contains(a, "s3cret") || !strings.Contains(a, "sha256:") {
		t.Errorf("last-applied %s must hold the secret's hash only", a)
	}
}

// TestDesiredBodyHook: the MutateBody hook runs on the body decide compares,
// for the reconciler and for `operator plan` alike.
func TestDesiredBodyHook(t *testing.T) {
	d := gadget()
	gvk := schema.GroupVersionKind{Group: d.Group, Version: d.Version, Kind: d.Kind}
	RegisterHooks(gvk, Hooks{MutateBody: func(_ *unstructured.Unstructured, body map[string]any) error {
		body["tags"] = map[string]any{"managed-by": "armature"}
		return nil
	}})
	defer RegisterHooks(gvk, Hooks{})
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": d.Group + "/" + d.Version, "kind": d.Kind, "metadata": map[string]any{"name": "g"},
		"spec": map[string]any{"azureName": "g", "owner": map[string]any{"armId": "/subscriptions/s/resourceGroups/r"}, "location": "westeurope",
			"properties": map[string]any{"tier": "Hot", "password": map[string]any{"name": "pw", "key": "k"}}},
	}}
	var asked string
	desired, err := desiredBody(d, obj, func(p descriptor.Path, name, key string) (string, error) {
		asked = p.String() + "=" + name + "/" + key
		return "s3cret", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if asked != "properties.password=pw/k" {
		t.Errorf("resolver asked for %q", asked)
	}
	want := map[string]any{"location": "westeurope", "properties": map[string]any{"tier": "Hot", "password": "s3cret"}, "tags": map[string]any{"managed-by": "armature"}}
	if diff := cmp.Diff(want, desired); diff != "" {
		t.Errorf("desired body -want +got:\n%s", diff)
	}
	last := mustJSON(hashSecrets(d, map[string]any{"location": "westeurope", "properties": map[string]any{"tier": "Hot", "password": "s3cret"}}))
	w, err := decide(d, desired, last, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Write{Verb: "PATCH", Body: map[string]any{"tags": map[string]any{"managed-by": "armature"}}, Reason: WhyChanged}, w); diff != "" {
		t.Errorf("the hook's change is a change: -want +got:\n%s", diff)
	}
}

func TestResolveID(t *testing.T) {
	d := gadget()
	d.OwnerARMType = "Microsoft.Resources/resourceGroups"
	rg := &descriptor.Descriptor{Kind: "ResourceGroup", ARMType: descriptor.ResourceGroupType, OwnerARMType: descriptor.SubscriptionType}
	obj := func(spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "meta"}, "spec": spec}}
	}
	cases := map[string]struct {
		d       *descriptor.Descriptor
		obj     *unstructured.Unstructured
		ownerID string
		sub     string
		want    string
		ok      bool
	}{
		"ResourceID":   {d: d, obj: obj(map[string]any{"resourceID": "/adopt/me"}), want: "/adopt/me", ok: true},
		"OwnerARMID":   {d: d, obj: obj(map[string]any{"azureName": "g1", "owner": map[string]any{"armId": "/subscriptions/s/resourceGroups/r"}}), want: "/subscriptions/s/resourceGroups/r/providers/Test.RP/gadgets/g1", ok: true},
		"OwnerCR":      {d: d, obj: obj(map[string]any{"owner": map[string]any{"name": "rg"}}), ownerID: "/subscriptions/s/resourceGroups/r", want: "/subscriptions/s/resourceGroups/r/providers/Test.RP/gadgets/meta", ok: true},
		"OwnerUnknown": {d: d, obj: obj(map[string]any{"owner": map[string]any{"name": "rg"}})},
		"Subscription": {d: rg, obj: obj(map[string]any{}), sub: "s", want: "/subscriptions/s/resourceGroups/meta", ok: true},
		"NoSub":        {d: rg, obj: obj(map[string]any{})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := resolveID(tc.d, tc.obj, tc.ownerID, tc.sub)
			if got != tc.want || ok != tc.ok {
				t.Errorf("resolveID = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
