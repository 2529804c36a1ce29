package reconciler

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/api/core"
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
	mutate := func(_ *unstructured.Unstructured, body map[string]any) error {
		body["tags"] = map[string]any{"managed-by": "armature"}
		return nil
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": d.Group + "/" + d.Version, "kind": d.Kind, "metadata": map[string]any{"name": "g"},
		"spec": map[string]any{"azureName": "g", "owner": map[string]any{"armId": "/subscriptions/s/resourceGroups/r"}, "location": "westeurope",
			"properties": map[string]any{"tier": "Hot", "password": map[string]any{"name": "pw", "key": "k"}}},
	}}
	var asked string
	desired, err := desiredBody(d, obj, nil, nil, func(p descriptor.Path, name, key string) (string, error) {
		asked = p.String() + "=" + name + "/" + key
		return "s3cret", nil
	}, mutate)
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

// vnet is a Descriptor with an embedded child collection
// (properties.subnets) and a PATCH that only takes tags.
func vnet() *descriptor.Descriptor {
	d := &descriptor.Descriptor{
		Group: "test.armature.dev", Version: "v1", Kind: "Net", ARMType: "Test.RP/nets",
		Verbs: []string{"GET", "PUT", "PATCH", "DELETE"}, PatchTagsOnly: true,
		Properties: []descriptor.Property{
			{Path: descriptor.P("location"), Class: descriptor.CreateOnly},
			{Path: descriptor.P("properties"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "addressPrefix"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "subnets"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "subnets", descriptor.Items, "etag"), Class: descriptor.ReadOnly},
			{Path: descriptor.P("properties", "subnets", descriptor.Items, "id"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "subnets", descriptor.Items, "name"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "subnets", descriptor.Items, "properties"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "subnets", descriptor.Items, "properties", "addressPrefix"), Class: descriptor.Writable},
			{Path: descriptor.P("properties", "subnets", descriptor.Items, "properties", "provisioningState"), Class: descriptor.ReadOnly},
			{Path: descriptor.P("tags"), Class: descriptor.Writable},
		},
		EmbeddedChildren: []descriptor.EmbeddedChild{{Path: descriptor.P("properties", "subnets"), ARMType: "Test.RP/nets/subnets"}},
	}
	slices.SortFunc(d.Properties, func(a, b descriptor.Property) int { return a.Path.Compare(b.Path) })
	return d
}

// TestDecideEmbeddedChildren: a write of a parent never removes the child
// resources the spec does not name (a Subnet created as its own object).
func TestDecideEmbeddedChildren(t *testing.T) {
	fullPatch := vnet()
	fullPatch.PatchTagsOnly = false
	notMarked := vnet()
	notMarked.EmbeddedChildren = nil
	sub := func(name, prefix string) map[string]any {
		return map[string]any{"name": name, "properties": map[string]any{"addressPrefix": prefix}}
	}
	liveSub := func(name, prefix string) map[string]any {
		return map[string]any{"name": name, "id": "/nets/n/subnets/" + name, "etag": "W/1",
			"properties": map[string]any{"addressPrefix": prefix, "provisioningState": "Succeeded"}}
	}
	sentSub := func(name, prefix string) map[string]any {
		return map[string]any{"name": name, "id": "/nets/n/subnets/" + name, "properties": map[string]any{"addressPrefix": prefix}}
	}
	net := func(tags map[string]any, subnets ...any) map[string]any {
		b := map[string]any{"location": "westeurope", "properties": map[string]any{"addressPrefix": "10.0.0.0/16"}}
		if subnets != nil {
			b["properties"].(map[string]any)["subnets"] = subnets
		}
		if tags != nil {
			b["tags"] = tags
		}
		return b
	}
	live := func(subnets ...any) map[string]any {
		b := net(map[string]any{"env": "dev"}, subnets...)
		b["id"] = "/nets/n"
		return b
	}
	applied := func(d *descriptor.Descriptor, b map[string]any) string { return mustJSON(hashSecrets(d, b)) }
	dev, prod := map[string]any{"env": "dev"}, map[string]any{"env": "prod"}
	cases := map[string]struct {
		reason  string
		d       *descriptor.Descriptor
		desired map[string]any
		last    string
		live    map[string]any
		want    Write
	}{
		"TagEditPutKeepsChildren": {
			reason: "a tag edit of a parent whose spec has no subnets goes as GET + PUT: the live subnets are in the PUT (ARM deletes the ones a PUT leaves out)",
			d:      vnet(), desired: net(prod), last: applied(vnet(), net(dev)), live: live(liveSub("a", "10.0.1.0/24"), liveSub("b", "10.0.2.0/24")),
			want: Write{Verb: "PUT", Reason: WhyChanged, Body: net(prod, sentSub("a", "10.0.1.0/24"), sentSub("b", "10.0.2.0/24"))},
		},
		"TagEditPatchLeavesThemOut": {
			reason: "with a full PATCH a tag edit sends the tags alone: the collection is not in the body",
			d:      fullPatch, desired: net(prod), last: applied(fullPatch, net(dev)),
			want: Write{Verb: "PATCH", Reason: WhyChanged, Body: map[string]any{"tags": prod}},
		},
		"SpecChildChangedKeepsOthers": {
			reason: "the spec's subnet a changed: a is sent as the spec says, b (a Subnet object's) is kept",
			d:      vnet(), desired: net(dev, sub("a", "10.0.3.0/24")), last: applied(vnet(), net(dev, sub("a", "10.0.1.0/24"))),
			live: live(liveSub("a", "10.0.1.0/24"), liveSub("b", "10.0.2.0/24")),
			want: Write{Verb: "PUT", Reason: WhyChanged, Body: net(dev, sub("a", "10.0.3.0/24"), sentSub("b", "10.0.2.0/24"))},
		},
		"SpecChildRemoved": {
			reason: "a subnet the spec named (c) and no longer names is removed; b, never named, is kept",
			d:      vnet(), desired: net(dev, sub("a", "10.0.1.0/24")), last: applied(vnet(), net(dev, sub("a", "10.0.1.0/24"), sub("c", "10.0.4.0/24"))),
			live: live(liveSub("a", "10.0.1.0/24"), liveSub("b", "10.0.2.0/24"), liveSub("c", "10.0.4.0/24")),
			want: Write{Verb: "PUT", Reason: WhyChanged, Body: net(dev, sub("a", "10.0.1.0/24"), sentSub("b", "10.0.2.0/24"))},
		},
		"SpecDropsCollection": {
			reason: "a spec that no longer sets subnets removes the ones it named (c), not the others (b)",
			d:      fullPatch, desired: net(dev), last: applied(fullPatch, net(dev, sub("c", "10.0.4.0/24"))),
			live: live(liveSub("b", "10.0.2.0/24"), liveSub("c", "10.0.4.0/24")),
			want: Write{Verb: "PATCH", Reason: WhyChanged, Body: map[string]any{"properties": map[string]any{"subnets": []any{sentSub("b", "10.0.2.0/24")}}}},
		},
		"FullPatchNeedsLive": {
			reason: "a PATCH that sets the collection replaces it: the live children are needed first",
			d:      fullPatch, desired: net(dev, sub("a", "10.0.3.0/24")), last: applied(fullPatch, net(dev, sub("a", "10.0.1.0/24"))),
			want: Write{Reason: WhyChanged, NeedLive: true},
		},
		"FullPatchMerged": {
			reason: "with the live body, the PATCH carries the spec's subnet and the live one it does not name",
			d:      fullPatch, desired: net(dev, sub("a", "10.0.3.0/24")), last: applied(fullPatch, net(dev, sub("a", "10.0.1.0/24"))),
			live: live(liveSub("a", "10.0.1.0/24"), liveSub("b", "10.0.2.0/24")),
			want: Write{Verb: "PATCH", Reason: WhyChanged, Body: map[string]any{"properties": map[string]any{"subnets": []any{sub("a", "10.0.3.0/24"), sentSub("b", "10.0.2.0/24")}}}},
		},
		"AdoptExtraChildNoDrift": {
			reason: "adoption: live has a subnet the spec does not name: no drift, no write",
			d:      vnet(), desired: net(dev, sub("a", "10.0.1.0/24")),
			live: live(liveSub("a", "10.0.1.0/24"), liveSub("b", "10.0.2.0/24")),
			want: Write{Reason: WhyInSync},
		},
		"AdoptChildDiffers": {
			reason: "adoption: the spec's subnet differs: it is sent with the live subnet the spec does not name",
			d:      vnet(), desired: net(dev, sub("a", "10.0.3.0/24")),
			live: live(liveSub("a", "10.0.1.0/24"), liveSub("b", "10.0.2.0/24")),
			want: Write{Verb: "PUT", Reason: WhyLive + " at properties.subnets", Body: net(dev, sub("a", "10.0.3.0/24"), sentSub("b", "10.0.2.0/24"))},
		},
		"AdoptChildMissing": {
			reason: "adoption: a subnet the spec names is not live: drift",
			d:      vnet(), desired: net(dev, sub("z", "10.0.9.0/24")),
			live: live(liveSub("b", "10.0.2.0/24")),
			want: Write{Verb: "PUT", Reason: WhyLive + " at properties.subnets", Body: net(dev, sub("z", "10.0.9.0/24"), sentSub("b", "10.0.2.0/24"))},
		},
		"NotMarkedReplaces": {
			reason: "control: a collection not marked embedded is replaced by the spec's (what the mark prevents)",
			d:      notMarked, desired: net(dev, sub("a", "10.0.3.0/24")), last: applied(notMarked, net(dev, sub("a", "10.0.1.0/24"))),
			live: live(liveSub("a", "10.0.1.0/24"), liveSub("b", "10.0.2.0/24")),
			want: Write{Verb: "PUT", Reason: WhyChanged, Body: net(dev, sub("a", "10.0.3.0/24"))},
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

// TestDriftEmbeddedChildren: drift names the collection only for a child
// the spec names that is missing or differs in a value the spec sets.
func TestDriftEmbeddedChildren(t *testing.T) {
	d := vnet()
	live := map[string]any{"properties": map[string]any{"subnets": []any{
		map[string]any{"name": "A", "etag": "x", "properties": map[string]any{"addressPrefix": "10.0.1.0/24", "provisioningState": "Succeeded"}},
		map[string]any{"name": "b", "properties": map[string]any{"addressPrefix": "10.0.2.0/24"}},
	}}}
	want := func(subnets ...any) map[string]any {
		return map[string]any{"properties": map[string]any{"subnets": subnets}}
	}
	cases := map[string]struct {
		desired map[string]any
		want    []string
	}{
		"NamesOneOfTwo":  {desired: want(map[string]any{"name": "a", "properties": map[string]any{"addressPrefix": "10.0.1.0/24"}})},
		"NameOnly":       {desired: want(map[string]any{"name": "b"})},
		"Differs":        {desired: want(map[string]any{"name": "b", "properties": map[string]any{"addressPrefix": "10.0.7.0/24"}}), want: []string{"properties.subnets"}},
		"Missing":        {desired: want(map[string]any{"name": "c"}), want: []string{"properties.subnets"}},
		"EmptyIsInSync":  {desired: want()},
		"NotInSpecAtAll": {desired: map[string]any{"properties": map[string]any{}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, drift(d, tc.desired, live)); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}

// TestDesiredBodyRequired: a value the ARM API requires that the resolved
// body leaves out stops the write (RequiredMissing, naming the spec path);
// a valuesFrom entry that supplies it lets it through.
func TestDesiredBodyRequired(t *testing.T) {
	d := gadget()
	d.Properties[1].Required = true // properties
	d.Properties = append(d.Properties, descriptor.Property{Path: descriptor.P("properties", "principalId"), Class: descriptor.CreateOnly, Required: true})
	slices.SortFunc(d.Properties, func(a, b descriptor.Property) int { return a.Path.Compare(b.Path) })
	obj := func(spec map[string]any) *unstructured.Unstructured {
		spec["location"] = "westeurope"
		return &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	}
	noSecrets := func(descriptor.Path, string, string) (string, error) { return "", nil }
	_, err := desiredBody(d, obj(map[string]any{"properties": map[string]any{"tier": "Hot"}}), nil, nil, noSecrets, nil)
	var te *terminalError
	if !errors.As(err, &te) || te.reason != core.ReasonRequiredMissing || !strings.Contains(te.message, "requires spec.properties.principalId:") {
		t.Fatalf("err = %v, want RequiredMissing naming spec.properties.principalId", err)
	}
	values := func(string, map[string]any) (any, error) { return "0000-principal", nil }
	vf := []any{map[string]any{"path": "properties.principalId", "from": map[string]any{"kind": "UserAssignedIdentity", "name": "id", "field": "status.properties.principalId"}}}
	body, err := desiredBody(d, obj(map[string]any{"valuesFrom": vf}), nil, values, noSecrets, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := descriptor.P("properties", "principalId").Get(body); got != "0000-principal" {
		t.Errorf("body %v, want the principal from valuesFrom", body)
	}
}
