package reconciler

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// widgetGVK is the kind the referencing gadget's references name.
var widgetGVK = schema.GroupVersionKind{Group: "test.armature.dev", Version: "v1", Kind: "Widget"}

const widgetID = "/subscriptions/s/resourceGroups/team-b/providers/Test.RP/widgets/w1"

// referringGadget is the gadget kind with two references: a subnet-like
// SubResource (properties.subnet.id, Widgets only) and an id-keyed map
// (identity.userAssignedIdentities, any kind).
func referringGadget() *descriptor.Descriptor {
	d := gadget()
	d.Kind = "ReferringGadget"
	d.References = []descriptor.Reference{
		{Path: descriptor.P("identity", "userAssignedIdentities"), Map: true},
		{Path: descriptor.P("properties", "subnet", "id"), Targets: []string{"test.armature.dev/Widget"}},
	}
	return d
}

func widget(name, id string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	u.SetGroupVersionKind(widgetGVK)
	u.SetNamespace("team-a")
	u.SetName(name)
	if id != "" {
		u.Object["status"] = map[string]any{"id": id}
	}
	return u
}

// newRefMachine is newMachine with the Widget kind served and the given
// widgets stored.
func newRefMachine(t *testing.T, obj *unstructured.Unstructured, widgets ...*unstructured.Unstructured) *machine {
	t.Helper()
	d := referringGadget()
	gvk := d.GroupVersionKind()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, g := range []schema.GroupVersionKind{gvk, widgetGVK} {
		s.AddKnownTypeWithName(g, &unstructured.Unstructured{})
		s.AddKnownTypeWithName(g.GroupVersion().WithKind(g.Kind+"List"), &unstructured.UnstructuredList{})
	}
	obj.SetGroupVersionKind(gvk)
	objs := []client.Object{obj}
	for _, w := range widgets {
		objs = append(objs, w)
	}
	m := &machine{t: t, d: d, cfg: machineConfig(), obj: obj, s: &script{t: t}}
	indexed := &unstructured.Unstructured{}
	indexed.SetGroupVersionKind(gvk)
	m.c = fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(obj).
		WithIndex(indexed, refIndex, func(o client.Object) []string { return refTargets(o.(*unstructured.Unstructured)) }).Build()
	m.rec = record.NewFakeRecorder(256)
	m.restart()
	m.r.kinds = newKindSet(map[schema.GroupKind]string{widgetGVK.GroupKind(): "v1", gvk.GroupKind(): "v1"})
	m.r.referring = []schema.GroupVersionKind{gvk}
	return m
}

func refObject(spec map[string]any) *unstructured.Unstructured {
	u := gadgetObject(mName)
	for k, v := range spec {
		u.Object["spec"].(map[string]any)[k] = v
	}
	return u
}

func subnetRef(kind, name string) map[string]any {
	return map[string]any{"subnet": map[string]any{"idRef": map[string]any{"kind": kind, "name": name}}}
}

func TestReferenceWaitsForItsTarget(t *testing.T) {
	for name, c := range map[string]struct {
		widgets []*unstructured.Unstructured
		want    string
	}{
		"missing": {nil, "does not exist in namespace team-a"},
		"no id":   {[]*unstructured.Unstructured{widget("w1", "")}, "has no ARM id yet"},
	} {
		t.Run(name, func(t *testing.T) {
			m := newRefMachine(t, refObject(map[string]any{"properties": subnetRef("Widget", "w1")}), c.widgets...)
			res, err := m.run() // no ARM call at all
			if err != nil {
				t.Fatalf("reconcile: %v", err)
			}
			if res.RequeueAfter != mSync {
				t.Errorf("requeue after %v, want the sync period %v (the target's watch requeues sooner)", res.RequeueAfter, mSync)
			}
			ready := condOf(m.get(), tReady)
			msg, _ := ready["message"].(string)
			if ready["status"] != "False" || ready["reason"] != "WaitingForReference" || !strings.Contains(msg, c.want) || !strings.Contains(msg, "spec.properties.subnet.idRef") || !strings.Contains(msg, "Widget w1") {
				t.Errorf("Ready = %v, want False WaitingForReference naming spec.properties.subnet.idRef, Widget w1 and %q", ready, c.want)
			}
		})
	}
}

func TestReferenceSendsTheTargetsID(t *testing.T) {
	spec := map[string]any{
		"properties": subnetRef("Widget", "w1"),
		"identity": map[string]any{"type": "UserAssigned", "userAssignedIdentitiesRefs": []any{
			map[string]any{"group": "test.armature.dev", "kind": "Widget", "name": "w2"},
		}},
	}
	m := newRefMachine(t, refObject(spec), widget("w1", widgetID), widget("w2", widgetID+"2"))
	body := `{"location":"westeurope","properties":{"subnet":{"id":"` + widgetID + `"}},` +
		`"identity":{"type":"UserAssigned","userAssignedIdentities":{"` + widgetID + `2":{}}}}`
	if _, err := m.run(get(nil, notFound), put(body, ok(live()), nil), get(ok(live()), nil)); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if r := condOf(m.get(), tReady); r["status"] != "True" {
		t.Errorf("Ready = %v", r)
	}
	// The record of the write (the create's intent, which stands for
	// last-applied until the next write) holds the resolved id, never the
	// ref.
	a := m.get().GetAnnotations()
	last := a[tAnnLastApplied] + a[tAnnOperation]
	if !strings.Contains(last, widgetID) || strings.Contains(last, "idRef") {
		t.Errorf("records %s: want the resolved id and no ref", last)
	}
}

// TestReferenceWaitsForItsKind: a reference to a kind the field holds but
// the operator does not serve yet (its CRD not established: kinds are
// served as they come) waits, shown, instead of failing for good; once the
// kind is served, the same object resolves and is sent.
func TestReferenceWaitsForItsKind(t *testing.T) {
	m := newRefMachine(t, refObject(map[string]any{"properties": subnetRef("Widget", "w1")}), widget("w1", widgetID))
	m.r.kinds.set(widgetGVK.GroupKind(), "", false)
	if _, err := m.run(); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if r := condOf(m.get(), tReady); r["reason"] != "WaitingForReference" || !strings.Contains(r["message"].(string), "no kind Widget served") {
		t.Fatalf("Ready = %v, want WaitingForReference: no kind Widget served", r)
	}
	m.r.kinds.set(widgetGVK.GroupKind(), "v1", true)
	body := `{"location":"westeurope","properties":{"subnet":{"id":"` + widgetID + `"}}}`
	if _, err := m.run(get(nil, notFound), put(body, ok(live()), nil), get(ok(live()), nil)); err != nil {
		t.Fatalf("reconcile once Widget is served: %v", err)
	}
	if r := condOf(m.get(), tReady); r["status"] != "True" {
		t.Errorf("Ready = %v once Widget is served", r)
	}
}

func TestReferenceToAKindTheFieldCannotHold(t *testing.T) {
	m := newRefMachine(t, refObject(map[string]any{"properties": subnetRef("ReferringGadget", "other")}))
	if _, err := m.run(); err == nil {
		t.Fatal("reconcile: no error, want a terminal one")
	}
	ready := condOf(m.get(), tReady)
	if ready["reason"] != "InvalidReference" || !strings.Contains(ready["message"].(string), "allowed: test.armature.dev/Widget") {
		t.Errorf("Ready = %v, want InvalidReference naming the allowed kinds", ready)
	}
	m2 := newRefMachine(t, refObject(map[string]any{"properties": subnetRef("Nope", "x")}))
	m2.run()
	if r := condOf(m2.get(), tReady); r["reason"] != "InvalidReference" || !strings.Contains(r["message"].(string), "no kind Nope") {
		t.Errorf("Ready = %v, want InvalidReference: no kind Nope", r)
	}
}

func TestResolveRefsInArrays(t *testing.T) {
	refs := []descriptor.Reference{{Path: descriptor.P("properties", "ipConfigurations", descriptor.Items, "properties", "subnet", "id")}}
	body := map[string]any{"properties": map[string]any{"ipConfigurations": []any{
		map[string]any{"name": "a", "properties": map[string]any{"subnet": map[string]any{"idRef": map[string]any{"kind": "Subnet", "name": "s1"}}}},
		map[string]any{"name": "b", "properties": map[string]any{"subnet": map[string]any{"id": "/given"}}},
		map[string]any{"name": "c", "properties": map[string]any{"subnet": map[string]any{"idRef": map[string]any{"kind": "Subnet", "name": "s3"}}}},
	}}}
	var paths []string
	err := resolveRefs(refs, body, func(o ObjectRef) (string, error) {
		paths = append(paths, o.Path.String())
		return "/id/" + o.Name, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, item := range body["properties"].(map[string]any)["ipConfigurations"].([]any) {
		sn := item.(map[string]any)["properties"].(map[string]any)["subnet"].(map[string]any)
		if _, ok := sn["idRef"]; ok {
			t.Errorf("idRef left in the body: %v", sn)
		}
		got = append(got, sn["id"].(string))
	}
	if want := []string{"/id/s1", "/given", "/id/s3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids %v, want %v", got, want)
	}
	if want := []string{"properties.ipConfigurations[0].properties.subnet.idRef", "properties.ipConfigurations[2].properties.subnet.idRef"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
}

// The index of referrers reads a slim object as well as a whole one: the
// cache transform keeps the references.
func TestRefTargetsOfSlimObjects(t *testing.T) {
	d := referringGadget()
	registerRefPaths(d)
	u := refObject(map[string]any{"properties": subnetRef("Widget", "w1"), "identity": map[string]any{
		"userAssignedIdentitiesRefs": []any{map[string]any{"kind": "Identity", "name": "id1"}, map[string]any{"kind": "Widget", "name": "w1"}},
	}})
	u.SetGroupVersionKind(d.GroupVersionKind())
	want := []string{"identity/id1", "widget/w1"}
	if got := refTargets(u); !reflect.DeepEqual(got, want) {
		t.Fatalf("whole: %v, want %v", got, want)
	}
	slim, err := transform(u.DeepCopy(), true)
	if err != nil {
		t.Fatal(err)
	}
	su := slim.(*unstructured.Unstructured)
	if _, packed := su.Object[packedKey]; !packed {
		t.Fatal("not packed")
	}
	if got := refTargets(su); !reflect.DeepEqual(got, want) {
		t.Errorf("slim: %v, want %v", got, want)
	}
	back, err := Unpacked(su)
	if err != nil {
		t.Fatal(err)
	}
	if _, left := back.Object[slimRefs]; left {
		t.Error("unpack left the slim member")
	}
}

// A target whose id changes (recreated elsewhere) re-renders its
// referrer: the next reconcile sends the new id, and only it.
func TestReferenceFollowsItsTargetsID(t *testing.T) {
	m := newRefMachine(t, refObject(map[string]any{"properties": subnetRef("Widget", "w1")}), widget("w1", widgetID))
	withSubnet := func(id string) map[string]any {
		return live("properties.subnet", map[string]any{"id": id})
	}
	if _, err := m.run(get(nil, notFound), put("", ok(withSubnet(widgetID)), nil), get(ok(withSubnet(widgetID)), nil)); err != nil {
		t.Fatalf("create: %v", err)
	}
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetGVK)
	if err := m.c.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "w1"}, w); err != nil {
		t.Fatal(err)
	}
	moved := widgetID + "-recreated"
	w.Object["status"] = map[string]any{"id": moved}
	if err := m.c.Update(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	if _, err := m.run(patch(`{"properties":{"subnet":{"id":"`+moved+`"}}}`, ok(withSubnet(moved)), nil), get(ok(withSubnet(moved)), nil)); err != nil {
		t.Fatalf("after the target moved: %v", err)
	}
}

// Deleted together, an object waits for the objects that reference it:
// its DELETE is sent once they are gone.
func TestDeleteWaitsForDependents(t *testing.T) {
	m := newRefMachine(t, refObject(nil))
	m.created(nil)
	user := refObject(map[string]any{"identity": map[string]any{"userAssignedIdentitiesRefs": []any{
		map[string]any{"kind": "ReferringGadget", "name": mName},
	}}})
	user.SetName("user")
	user.SetUID("uid-user")
	user.SetFinalizers(nil) // its own deletion is another test's
	user.SetGroupVersionKind(m.d.GroupVersionKind())
	if err := m.c.Create(t.Context(), user); err != nil {
		t.Fatal(err)
	}
	m.delete()
	res, err := m.run() // no DELETE
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	ready := condOf(m.get(), tReady)
	if ready["reason"] != "WaitingForDependents" || !strings.Contains(ready["message"].(string), "ReferringGadget user") || res.RequeueAfter != mPoll {
		t.Fatalf("Ready = %v, requeue %v; want WaitingForDependents naming ReferringGadget user, requeued after %v", ready, res.RequeueAfter, mPoll)
	}
	if err := m.c.Delete(t.Context(), user); err != nil {
		t.Fatal(err)
	}
	if _, err := m.run(del(noContent(), nil)); err != nil {
		t.Fatalf("after the dependent went: %v", err)
	}
}

// Deleted together, an owner waits for the extension objects it owns (a
// role assignment on a storage account): they name it by kind and name,
// and ARM would take them with it, so their own DELETE would meet a 404.
func TestDeleteWaitsForExtensionChildren(t *testing.T) {
	lockGVK := schema.GroupVersionKind{Group: "authz.armature.dev", Version: "v1", Kind: "Lock"}
	d := referringGadget()
	gvk := d.GroupVersionKind()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, g := range []schema.GroupVersionKind{gvk, widgetGVK, lockGVK} {
		s.AddKnownTypeWithName(g, &unstructured.Unstructured{})
		s.AddKnownTypeWithName(g.GroupVersion().WithKind(g.Kind+"List"), &unstructured.UnstructuredList{})
	}
	obj := refObject(nil)
	obj.SetGroupVersionKind(gvk)
	lock := func(name string, owner map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"owner": owner}}}
		u.SetGroupVersionKind(lockGVK)
		u.SetNamespace(obj.GetNamespace())
		u.SetName(name)
		u.SetFinalizers([]string{"test.armature.dev/hold"})
		return u
	}
	mine := lock("mine", map[string]any{"kind": d.Kind, "name": mName})
	other := lock("other", map[string]any{"kind": "Widget", "name": mName}) // same name, another kind
	m := &machine{t: t, d: d, cfg: machineConfig(), obj: obj, s: &script{t: t}}
	indexed := &unstructured.Unstructured{}
	indexed.SetGroupVersionKind(lockGVK)
	m.c = fake.NewClientBuilder().WithScheme(s).WithObjects(obj, mine, other).WithStatusSubresource(obj).
		WithIndex(indexed, ownerAnyIndex, func(o client.Object) []string {
			g, k, n := specOwner(o.(*unstructured.Unstructured))
			return []string{ownerKey(g, k, n)}
		}).Build()
	m.rec = record.NewFakeRecorder(256)
	m.restart()
	m.r.kinds = newKindSet(map[schema.GroupKind]string{widgetGVK.GroupKind(): "v1", gvk.GroupKind(): "v1", lockGVK.GroupKind(): "v1"})
	m.r.extensionKinds = []schema.GroupVersionKind{lockGVK}
	m.created(nil)
	m.delete()
	// Just deleted, and its child not (yet): deleted together, the
	// child's deletion is on its way.
	if _, err := m.run(); err != nil { // no DELETE
		t.Fatalf("reconcile: %v", err)
	}
	ready := condOf(m.get(), tReady)
	if msg, _ := ready["message"].(string); ready["reason"] != "WaitingForDependents" || !strings.Contains(msg, "Lock mine (if deleted too)") {
		t.Fatalf("Ready = %v; want WaitingForDependents naming Lock mine, if deleted too", ready)
	}
	for _, l := range []*unstructured.Unstructured{mine, other} {
		if err := m.c.Delete(t.Context(), l); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.run(); err != nil { // no DELETE
		t.Fatalf("reconcile: %v", err)
	}
	ready = condOf(m.get(), tReady)
	if msg, _ := ready["message"].(string); ready["reason"] != "WaitingForDependents" || !strings.Contains(msg, "Lock mine (deleting)") || strings.Contains(msg, "other") {
		t.Fatalf("Ready = %v; want WaitingForDependents naming Lock mine only", ready)
	}
	mine = getObject(t, m.c, lockGVK, obj.GetNamespace(), "mine")
	mine.SetFinalizers(nil)
	if err := m.c.Update(t.Context(), mine); err != nil {
		t.Fatal(err)
	}
	if _, err := m.run(del(noContent(), nil)); err != nil {
		t.Fatalf("after the extension object went: %v", err)
	}
}

func getObject(t *testing.T, c client.Client, gvk schema.GroupVersionKind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

// Two objects deleted together that reference each other: the one whose
// key sorts first ("referringgadget/m" before ".../n") goes first instead
// of both waiting forever; the other waits for it.
func TestDeleteCycleOfTwo(t *testing.T) {
	ref := func(name string) map[string]any {
		return map[string]any{"identity": map[string]any{"userAssignedIdentitiesRefs": []any{map[string]any{"kind": "ReferringGadget", "name": name}}}}
	}
	other := refObject(ref(mName))
	other.SetName("n")
	other.SetUID("uid-n")
	other.SetFinalizers([]string{"test.armature.dev/hold"})
	other.SetGroupVersionKind(referringGadget().GroupVersionKind())
	other.Object["status"] = map[string]any{"id": "/subscriptions/s/resourceGroups/team-b/providers/Test.RP/gadgets/n"}
	m := newRefMachine(t, refObject(ref("n")), other)
	m.created(nil)
	// Only m is deleted: n still references it, so m waits.
	m.delete()
	if _, err := m.run(); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if ready := condOf(m.get(), tReady); ready["reason"] != "WaitingForDependents" {
		t.Fatalf("Ready = %v; want WaitingForDependents while n, not deleted, references m", ready)
	}
	// Both deleted: m sorts first, so its DELETE goes.
	if err := m.c.Delete(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	if _, err := m.run(del(noContent(), nil)); err != nil {
		t.Fatalf("deleted together: %v", err)
	}
}
