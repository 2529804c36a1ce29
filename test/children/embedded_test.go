package children_test

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	fabrikam "github.com/armature-dev/armature/generator/testdata/embedded/expected/apis/fabrikam/v20240501"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// embeddedCase is a parent kind with an embedded child collection and its
// child kind, with the bodies the test sends.
type embeddedCase struct {
	parent, child *descriptor.Descriptor
	// collection is the parent's embedded path (properties.subnets).
	collection descriptor.Path
	parentSpec func(owner map[string]any) map[string]any
	childSpec  func(owner, prefix string) map[string]any
}

func fabrikamNets() embeddedCase {
	return embeddedCase{
		parent: &fabrikam.NetDescriptor, child: &fabrikam.NetsSubnetDescriptor, collection: descriptor.P("properties", "subnets"),
		parentSpec: func(owner map[string]any) map[string]any {
			return map[string]any{"owner": owner, "location": "westeurope",
				"tags": map[string]any{"env": "dev"}, "properties": map[string]any{"addressPrefix": "10.0.0.0/16"}}
		},
		childSpec: func(owner, prefix string) map[string]any {
			return map[string]any{"owner": map[string]any{"name": owner}, "properties": map[string]any{"addressPrefix": prefix}}
		},
	}
}

// networkVNets is the same case over the generated Microsoft.Network kinds,
// or ok false when they are not generated.
func networkVNets() (embeddedCase, bool) {
	vnet, subnet := byType("Microsoft.Network/virtualNetworks"), byType("Microsoft.Network/virtualNetworks/subnets")
	if vnet == nil || subnet == nil {
		return embeddedCase{}, false
	}
	return embeddedCase{
		parent: vnet, child: subnet, collection: descriptor.P("properties", "subnets"),
		parentSpec: func(owner map[string]any) map[string]any {
			return map[string]any{"owner": owner, "location": "westeurope",
				"tags": map[string]any{"env": "dev"}, "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}}
		},
		childSpec: func(owner, prefix string) map[string]any {
			return map[string]any{"owner": map[string]any{"name": owner}, "properties": map[string]any{"addressPrefix": prefix}}
		},
	}, true
}

// TestEmbeddedChildrenSurviveParentEdit: a parent and two child objects;
// the parent's tags are edited → the operator writes the parent and both
// children still exist in the emulator, which removed nothing below the
// parent (it deletes the children a parent PUT leaves out, as Network
// does).
func TestEmbeddedChildrenSurviveParentEdit(t *testing.T) {
	t.Run("Fabrikam", func(t *testing.T) { tagEdit(t, fabrikamNets()) })
	t.Run("NetworkVirtualNetwork", func(t *testing.T) {
		c, ok := networkVNets()
		if !ok {
			t.Skip("Microsoft.Network virtualNetworks and subnets are not generated (generated/apis/network): the same test runs over the golden case's kinds above")
		}
		tagEdit(t, c)
	})
}

// groupOwner creates the resource group "rg", waits for it and returns
// the owner reference of a top-level kind in it: by name when the kind's
// owner is the generated ResourceGroup kind, else (the golden case, whose
// generation does not include resource groups) by the group's ARM id.
func groupOwner(t *testing.T, ns string, d *descriptor.Descriptor) map[string]any {
	t.Helper()
	rg := resourceGroup(ns, "rg")
	create(t, rg)
	waitReady(t, rg)
	if d.OwnerKind != "" {
		return map[string]any{"name": "rg"}
	}
	return map[string]any{"armId": statusID(t, rg)}
}

func tagEdit(t *testing.T, c embeddedCase) {
	ns := namespace(t)
	fa := start(t, ns, reconciler.Config{})
	parent := cr(c.parent, ns, "vnet1", c.parentSpec(groupOwner(t, ns, c.parent)))
	a := cr(c.child, ns, "a", c.childSpec("vnet1", "10.0.1.0/24"))
	b := cr(c.child, ns, "b", c.childSpec("vnet1", "10.0.2.0/24"))
	create(t, parent, a, b)
	waitReady(t, parent, a, b)
	parentID, aID, bID := statusID(t, parent), statusID(t, a), statusID(t, b)
	before := len(writes(fa, parentID))

	update(t, parent, func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, "prod", "spec", "tags", "env")
	})
	waitReady(t, parent)
	ws := writes(fa, parentID)
	if len(ws) <= before {
		t.Fatalf("the tag edit is written to ARM: %d writes of %s before, %d after", before, parentID, len(ws))
	}
	last := ws[len(ws)-1]
	if !strings.Contains(last.Body, `"prod"`) {
		t.Errorf("the last write of the parent carries the new tag: %s %s", last.Method, last.Body)
	}
	if last.Method == "PUT" && (!strings.Contains(last.Body, `"name":"a"`) || !strings.Contains(last.Body, `"name":"b"`)) {
		t.Errorf("a PUT of the parent carries the live children a and b: %s", last.Body)
	}
	for _, id := range []string{aID, bID} {
		if code := armGET(t, fa, id, c.child.APIVersion); code != 200 {
			t.Errorf("GET %s after the parent's edit: %d, want 200", id, code)
		}
	}
	if r := removals(fa, parentID+"/"); len(r) > 0 {
		t.Errorf("nothing below the parent is removed; the emulator's journal shows: %v", r)
	}
}

// TestEmbeddedInlineChangeKeepsChildObjects: the parent's spec holds one
// child inline (c) and two child objects exist (a, b); c is changed → the
// write of the parent sends c as the spec says and keeps a and b (without
// the merge, the collection in the write would be [c] and ARM would delete
// a and b).
func TestEmbeddedInlineChangeKeepsChildObjects(t *testing.T) {
	c := fabrikamNets()
	ns := namespace(t)
	fa := start(t, ns, reconciler.Config{})
	spec := c.parentSpec(groupOwner(t, ns, c.parent))
	inline := func(prefix string) []any {
		return []any{map[string]any{"name": "c", "properties": map[string]any{"addressPrefix": prefix}}}
	}
	c.collection.Set(spec, inline("10.0.3.0/24"))
	parent := cr(c.parent, ns, "vnet1", spec)
	a := cr(c.child, ns, "a", c.childSpec("vnet1", "10.0.1.0/24"))
	b := cr(c.child, ns, "b", c.childSpec("vnet1", "10.0.2.0/24"))
	create(t, parent, a, b)
	waitReady(t, parent, a, b)
	parentID, aID, bID := statusID(t, parent), statusID(t, a), statusID(t, b)
	if code := armGET(t, fa, parentID+"/subnets/c", c.child.APIVersion); code != 200 {
		t.Fatalf("the inline subnet c exists as a child resource: GET %d", code)
	}

	update(t, parent, func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(u.Object, inline("10.0.4.0/24"), "spec", "properties", "subnets")
	})
	waitReady(t, parent)
	ws := writes(fa, parentID)
	last := ws[len(ws)-1]
	if !strings.Contains(last.Body, "10.0.4.0/24") {
		t.Fatalf("the last write of the parent carries c's new prefix: %s %s", last.Method, last.Body)
	}
	for _, id := range []string{aID, bID} {
		if code := armGET(t, fa, id, c.child.APIVersion); code != 200 {
			t.Errorf("GET %s after the inline change: %d, want 200", id, code)
		}
	}
	if r := removals(fa, parentID+"/"); len(r) > 0 {
		t.Errorf("nothing below the parent is removed; the emulator's journal shows: %v", r)
	}
}

// TestEmbeddedDriftCorrectionKeepsChildObjects: someone changes the
// parent in Azure; the drift observer corrects it (its last-applied record
// is dropped, so the next write is decided against the live resource, not
// sent as the spec alone) and the child objects survive the correction.
func TestEmbeddedDriftCorrectionKeepsChildObjects(t *testing.T) {
	c := fabrikamNets()
	ns := namespace(t)
	fa := start(t, ns, reconciler.Config{SyncPeriod: 2 * time.Second})
	parent := cr(c.parent, ns, "vnet1", c.parentSpec(groupOwner(t, ns, c.parent)))
	a := cr(c.child, ns, "a", c.childSpec("vnet1", "10.0.1.0/24"))
	b := cr(c.child, ns, "b", c.childSpec("vnet1", "10.0.2.0/24"))
	create(t, parent, a, b)
	waitReady(t, parent, a, b)
	parentID, aID, bID := statusID(t, parent), statusID(t, a), statusID(t, b)
	if code := armDo(t, fa, "PATCH", parentID, c.parent.APIVersion, `{"properties":{"addressPrefix":"10.9.0.0/16"}}`); code != 200 {
		t.Fatalf("out-of-band PATCH: %d", code)
	}
	eventually(t, 30*time.Second, "the drift is corrected", func() (bool, string) {
		ws := writes(fa, parentID)
		last := ws[len(ws)-1]
		return last.Method == "PUT" && strings.Contains(last.Body, "10.0.0.0/16"), last.Method + " " + last.Body
	})
	for _, id := range []string{aID, bID} {
		if code := armGET(t, fa, id, c.child.APIVersion); code != 200 {
			t.Errorf("GET %s after the correction: %d, want 200", id, code)
		}
	}
	if r := removals(fa, parentID+"/"); len(r) > 0 {
		t.Errorf("nothing below the parent is removed; the emulator's journal shows: %v", r)
	}
}
