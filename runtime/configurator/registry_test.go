package configurator

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRegistry(t *testing.T) {
	type want struct {
		selects, renders map[string]int
		stats            Stats
	}
	cases := map[string]struct {
		reason string
		change func(f *fixture)
		want   want
		check  func(t *testing.T, f *fixture)
	}{
		"TrackedChangeReselectsDependentsOnly": {
			reason: "Group a turning Ready re-selects w1 and w2 (its dependents), not w3 or w4; their status echo re-selects nothing.",
			change: func(f *fixture) { f.m.put(group("a", true)) },
			want: want{
				selects: map[string]int{"w1": 1, "w2": 1},
				renders: map[string]int{"w1": 1, "w2": 1},
				stats:   Stats{Selects: 2, Renders: 2, StatusWrites: 2},
			},
		},
		"UnchangedOutputDoesNotRender": {
			reason: "A label on group a is visible to w1 and w2, so they re-select, but their output is the same: no Render.",
			change: func(f *fixture) {
				f.m.update(ref(groupGVK, "a"), func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"x": "y"}) })
			},
			want: want{selects: map[string]int{"w1": 1, "w2": 1}, renders: map[string]int{}, stats: Stats{Selects: 2}},
		},
		"UnchangedResultIsNotWritten": {
			reason: "The note is selected but not rendered: Render runs, the status and ConfigMap are the same, nothing is written.",
			change: func(f *fixture) {
				f.m.update(ref(groupGVK, "a"), func(u *unstructured.Unstructured) { u.SetAnnotations(map[string]string{"note": "hi"}) })
			},
			want: want{
				selects: map[string]int{"w1": 1, "w2": 1},
				renders: map[string]int{"w1": 1, "w2": 1},
				stats:   Stats{Selects: 2, Renders: 2},
			},
		},
		"ResourceVersionOnlyChangeSelectsNothing": {
			reason: "An update that changes nothing visible (a resync, a managedFields change) re-selects no one.",
			change: func(f *fixture) { f.m.update(ref(groupGVK, "a"), func(*unstructured.Unstructured) {}) },
			want:   want{selects: map[string]int{}, renders: map[string]int{}},
		},
		"OwnMetadataChangeDoesNotReselect": {
			reason: "A label on w1 itself is metadata only.",
			change: func(f *fixture) {
				f.m.update(ref(widgetGVK, "w1"), func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"x": "y"}) })
			},
			want: want{selects: map[string]int{}, renders: map[string]int{}},
		},
		"OwnSpecChangeRendersAndApplies": {
			reason: "A new child of w1 is applied (x is unchanged and not applied again) and added to the annotation.",
			change: func(f *fixture) { f.m.put(widget("w1", "a", "x", "y")) },
			want: want{
				selects: map[string]int{"w1": 1}, renders: map[string]int{"w1": 1},
				stats: Stats{Selects: 1, Renders: 1, Applies: 1, AnnotationWrites: 1},
			},
			check: func(t *testing.T, f *fixture) {
				y := f.m.obj(ref(cmGVK, "y"))
				if y == nil {
					t.Fatal("ConfigMap y was not applied")
				}
				w := f.m.obj(ref(widgetGVK, "w1"))
				if diff := cmp.Diff(string(w.GetUID()), y.GetLabels()[LabelRenderedBy]); diff != "" {
					t.Errorf("rendered-by label: -want +got:\n%s", diff)
				}
				if got := y.GetOwnerReferences(); len(got) != 1 || got[0].UID != w.GetUID() || got[0].Controller == nil || !*got[0].Controller {
					t.Errorf("owner references: %+v", got)
				}
			},
		},
		"RemovedDeclarationIsPruned": {
			reason: "w1 no longer declares x: it is deleted and the annotation removed.",
			change: func(f *fixture) { f.m.put(widget("w1", "a")) },
			want: want{
				selects: map[string]int{"w1": 1}, renders: map[string]int{"w1": 1},
				stats: Stats{Selects: 1, Renders: 1, Deletes: 1, AnnotationWrites: 1},
			},
			check: func(t *testing.T, f *fixture) {
				if f.m.obj(ref(cmGVK, "x")) != nil {
					t.Error("ConfigMap x still exists")
				}
				if _, ok := f.m.obj(ref(widgetGVK, "w1")).GetAnnotations()[AnnotationRendered]; ok {
					t.Error("annotation still set")
				}
			},
		},
		"DeletedTrackedReselectsWithNil": {
			reason: "Deleting group b re-selects w3 only, which sees nil and writes found=false.",
			change: func(f *fixture) { f.m.remove(ref(groupGVK, "b")) },
			want: want{
				selects: map[string]int{"w3": 1}, renders: map[string]int{"w3": 1},
				stats: Stats{Selects: 1, Renders: 1, StatusWrites: 1},
			},
			check: func(t *testing.T, f *fixture) {
				if f.seen["w3"] != nil {
					t.Error("w3's Select saw a group")
				}
				st, _, _ := unstructured.NestedMap(f.m.obj(ref(widgetGVK, "w3")).Object, "status")
				if diff := cmp.Diff(map[string]any{"found": false, "ready": false}, st); diff != "" {
					t.Errorf("status: -want +got:\n%s", diff)
				}
			},
		},
		"CreatedTrackedReselects": {
			reason: "w4 read group d before it existed; creating it re-selects w4.",
			change: func(f *fixture) { f.m.put(group("d", true)) },
			want: want{
				selects: map[string]int{"w4": 1}, renders: map[string]int{"w4": 1},
				stats: Stats{Selects: 1, Renders: 1, StatusWrites: 1},
			},
		},
		"UntrackedResourceSelectsNothing": {
			reason: "No one read group c.",
			change: func(f *fixture) { f.m.put(group("c", true)) },
			want:   want{selects: map[string]int{}, renders: map[string]int{}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.m.put(group("a", false))
			f.m.put(group("b", true))
			f.m.put(widget("w1", "a", "x"))
			f.m.put(widget("w2", "a"))
			f.m.put(widget("w3", "b"))
			f.m.put(widget("w4", "d"))
			f.drain()
			s0, r0 := f.counts()
			st0 := f.reg.Stats()
			tc.change(f)
			f.drain()
			s1, r1 := f.counts()
			got := want{selects: delta(s0, s1), renders: delta(r0, r1), stats: f.reg.Stats().Sub(st0)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
			if tc.check != nil {
				tc.check(t, f)
			}
		})
	}
}

func delta(before, after map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// TestRestartStillPrunes: a second registry (a restarted operator, no
// records) learns what was declared from the annotation.
func TestRestartStillPrunes(t *testing.T) {
	m := newMem()
	first := newFixture(t, m)
	m.put(group("a", true))
	m.put(widget("w1", "a", "x", "y"))
	first.drain()

	second := newFixture(t, m)
	second.drain()
	if diff := cmp.Diff(Stats{Selects: 1, Renders: 1, Applies: 2}, second.reg.Stats()); diff != "" {
		t.Errorf("first run after restart: re-applies each declared resource once, writes no unchanged status; -want +got:\n%s", diff)
	}
	m.put(widget("w1", "a", "x"))
	second.drain()
	if m.obj(ref(cmGVK, "y")) != nil {
		t.Error("ConfigMap y declared before the restart was not pruned")
	}
	if m.obj(ref(cmGVK, "x")) == nil {
		t.Error("ConfigMap x was deleted")
	}
}

func TestSelectReadErrorIsRecordedAndRetried(t *testing.T) {
	f := newFixture(t, nil)
	f.m.put(group("a", true))
	f.m.getErr = map[schema.GroupVersionKind]error{groupGVK: errors.New("cache down")}
	f.m.put(widget("w1", "a"))
	if !f.reg.processNext(f.ctx) {
		t.Fatal("queue shut down")
	}
	rec := f.reg.Records()["Widget.test.armature.dev"]["ns/w1"]
	want := Record{}
	want.Selected.Error = "read Group.test.armature.dev ns/a: cache down"
	if diff := cmp.Diff(want.Selected.Error, rec.Selected.Error); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
	if diff := cmp.Diff(Stats{Selects: 1, Errors: 1}, f.reg.Stats()); diff != "" {
		t.Errorf("a Select whose read failed does not render; -want +got:\n%s", diff)
	}
	if diff := cmp.Diff([]Ref{ref(groupGVK, "a")}, f.reg.Index().Tracked(ref(widgetGVK, "w1"))); diff != "" {
		t.Errorf("the failed read stays tracked, so the group's recovery re-selects; -want +got:\n%s", diff)
	}
	f.m.getErr = nil
	f.m.put(group("a", false))
	f.drain()
	if diff := cmp.Diff(Stats{Selects: 2, Renders: 1, StatusWrites: 1, Errors: 1}, f.reg.Stats()); diff != "" {
		t.Errorf("after recovery; -want +got:\n%s", diff)
	}
}

func TestRecords(t *testing.T) {
	f := newFixture(t, nil)
	g := f.m.put(group("a", true))
	w := f.m.put(widget("w1", "a", "x"))
	f.drain()

	got := f.reg.Records()["Widget.test.armature.dev"]["ns/w1"]
	want := Record{
		Input: Input{UID: w.GetUID(), Generation: 1, ResourceVersion: w.GetResourceVersion()},
		Selected: SelectedRecord{
			Tracked: map[string]map[string]TrackedRead{"Group.test.armature.dev": {"ns/a": {
				Found: true, ResourceVersion: g.GetResourceVersion(), Generation: 1, Digest: digest(g),
			}}},
			Output: Selected{"children": []any{"x"}, "found": true, "ready": true, "location": "westeurope", "note": ""},
		},
		Rendered: RenderedRecord{
			Status:    Status{"found": true, "ready": true},
			Resources: []Child{{APIVersion: "v1", Kind: "ConfigMap", Name: "x", Digest: got.Rendered.Resources[0].Digest}},
		},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Record{})); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}

	srv := httptest.NewServer(f.reg.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + RecordsPath + "?kind=Widget.test.armature.dev&name=ns/w1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var served map[string]map[string]struct {
		Selected struct {
			Tracked map[string]map[string]TrackedRead `json:"tracked"`
		} `json:"selected"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&served); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Selected.Tracked, served["Widget.test.armature.dev"]["ns/w1"].Selected.Tracked); diff != "" {
		t.Errorf("served tracked reads: -want +got:\n%s", diff)
	}
}

func TestRenderErrors(t *testing.T) {
	cases := map[string]struct {
		reason  string
		declare func(ix *Renderer)
		want    string
	}{
		"DeclaredTwice": {
			reason:  "two declarations of one resource are a mistake, not a merge",
			declare: func(ix *Renderer) { ix.Resource(cm("x", "")); ix.Resource(cm("x", "")) },
			want:    "ConfigMap x declared twice",
		},
		"OtherNamespace": {
			reason:  "owner references do not cross namespaces",
			declare: func(ix *Renderer) { ix.Resource(cm("x", "elsewhere")) },
			want:    `render Widget.test.armature.dev ns/w1: declared ConfigMap x is in namespace "elsewhere", not "ns"`,
		},
		"Panic": {
			reason:  "a panicking Render is an error of its resource, not of the operator",
			declare: func(*Renderer) { panic("boom") },
			want:    "render Widget.test.armature.dev ns/w1: render panicked: boom",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := newMem()
			reg := New(memClient{m: m}, m)
			err := reg.Register(Kind{
				GVK:    widgetGVK,
				Select: func(*Tracker, *Resource) (Selected, error) { return Selected{}, nil },
				Render: func(ix *Renderer, _ Selected) (Status, error) { tc.declare(ix); return nil, nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			m.put(widget("w1", ""))
			got := ""
			if err := reg.process(t.Context(), ref(widgetGVK, "w1")); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
			if n := m.writes.Load(); n != 0 {
				t.Errorf("%d writes after a failed Render", n)
			}
		})
	}
}

func cm(name, ns string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "v"}}}
	u.SetName(name)
	u.SetNamespace(ns)
	return u
}
