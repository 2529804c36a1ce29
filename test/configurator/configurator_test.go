package configurator

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/runtime/configurator"
)

// widgets is the Widget kind under test, with its call counters. A
// Widget tracks the ResourceGroup named by spec.group; Select returns the
// group's existence, readiness, location and "note" annotation and the
// widget's children; Render declares a ConfigMap per child (holding the
// location) and writes status {found, ready} — the note is selected but
// not rendered, so a note change renders and writes nothing.
type widgets struct {
	selects, renders counter
	mu               sync.Mutex
	sawGroup         map[string]bool
}

func (w *widgets) kind() configurator.Kind {
	w.sawGroup = map[string]bool{}
	return configurator.Kind{
		GVK: widgetGVK,
		Select: func(ix *configurator.Tracker, in *configurator.Resource) (configurator.Selected, error) {
			w.selects.inc(in.Name)
			g := ix.Of(rgGVK, in.String("spec.group"))
			w.mu.Lock()
			w.sawGroup[in.Name] = g != nil
			w.mu.Unlock()
			children, _ := in.Spec["children"].([]any)
			sel := configurator.Selected{"children": append([]any(nil), children...), "found": g != nil, "ready": false, "location": "", "note": ""}
			if g != nil {
				sel["ready"], sel["location"], sel["note"] = g.Ready(), g.String("spec.location"), g.Annotations["note"]
			}
			return sel, nil
		},
		Render: func(ix *configurator.Renderer, sel configurator.Selected) (configurator.Status, error) {
			w.renders.inc(ix.Name())
			for _, c := range sel["children"].([]any) {
				ix.Resource(&unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": c.(string)},
					"data":     map[string]any{"location": sel["location"]},
				}})
			}
			return configurator.Status{"found": sel["found"], "ready": sel["ready"]}, nil
		},
	}
}

// TestConfigurator covers the "done means" of the configurator against a
// real apiserver. Each case starts from: ResourceGroups a (not Ready) and
// b; Widgets w1 (group a, child x), w2 (group a), w3 (group b).
func TestConfigurator(t *testing.T) {
	type want struct {
		Selects, Renders map[string]int
		// Writes is counted at the HTTP transport of the registry's client.
		Writes int64
	}
	cases := map[string]struct {
		reason string
		change func(t *testing.T, ns string)
		want   want
		check  func(t *testing.T, ns string, w *widgets)
	}{
		"TrackedChangeReselectsItsDependentsOnly": {
			reason: "a turning Ready re-selects and renders w1 and w2, not w3; each writes its status once (its echo re-selects nothing)",
			change: func(t *testing.T, ns string) { setReady(t, rgGVK, ns, "a", true) },
			want:   want{Selects: map[string]int{"w1": 1, "w2": 1}, Renders: map[string]int{"w1": 1, "w2": 1}, Writes: 2},
		},
		"UnchangedSelectOutputDoesNotRender": {
			reason: "a label on a is visible to w1 and w2, which re-select; their output is unchanged: no Render, no write",
			change: func(t *testing.T, ns string) {
				mutate(t, rgGVK, ns, "a", false, func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"team": "x"}) })
			},
			want: want{Selects: map[string]int{"w1": 1, "w2": 1}, Renders: map[string]int{}},
		},
		"UnchangedStatusIsNotWritten": {
			reason: "the note changes the output, so w1 and w2 render, but status and ConfigMap are the same: zero apiserver writes",
			change: func(t *testing.T, ns string) {
				mutate(t, rgGVK, ns, "a", false, func(u *unstructured.Unstructured) { u.SetAnnotations(map[string]string{"note": "hi"}) })
			},
			want: want{Selects: map[string]int{"w1": 1, "w2": 1}, Renders: map[string]int{"w1": 1, "w2": 1}},
		},
		"OwnMetadataChangeDoesNotReselect": {
			reason: "a label on w1 itself is metadata only",
			change: func(t *testing.T, ns string) {
				mutate(t, widgetGVK, ns, "w1", false, func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"team": "x"}) })
			},
			want: want{Selects: map[string]int{}, Renders: map[string]int{}},
		},
		"RemovedDeclarationsArePruned": {
			reason: "w1 declares y instead of x: the annotation lists both (so a crash after the apply still knows y), y is applied, x deleted, the annotation lists y",
			change: func(t *testing.T, ns string) {
				mutate(t, widgetGVK, ns, "w1", false, func(u *unstructured.Unstructured) {
					_ = unstructured.SetNestedSlice(u.Object, []any{"y"}, "spec", "children")
				})
			},
			want: want{Selects: map[string]int{"w1": 1}, Renders: map[string]int{"w1": 1}, Writes: 4},
			check: func(t *testing.T, ns string, _ *widgets) {
				if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "x"}, cm()); !apierrors.IsNotFound(err) {
					t.Errorf("ConfigMap x: want NotFound, got %v", err)
				}
				y := cm()
				if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "y"}, y); err != nil {
					t.Fatalf("ConfigMap y: %v", err)
				}
				w1 := &unstructured.Unstructured{}
				w1.SetGroupVersionKind(widgetGVK)
				if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "w1"}, w1); err != nil {
					t.Fatal(err)
				}
				refs := y.GetOwnerReferences()
				if len(refs) != 1 || refs[0].UID != w1.GetUID() || refs[0].Controller == nil || !*refs[0].Controller {
					t.Errorf("owner references of y: %+v", refs)
				}
				if diff := cmp.Diff(string(w1.GetUID()), y.GetLabels()[configurator.LabelRenderedBy]); diff != "" {
					t.Errorf("rendered-by label: -want +got:\n%s", diff)
				}
				if diff := cmp.Diff(`[{"apiVersion":"v1","kind":"ConfigMap","name":"y"}]`, w1.GetAnnotations()[configurator.AnnotationRendered]); diff != "" {
					t.Errorf("annotation: -want +got:\n%s", diff)
				}
			},
		},
		"DeletedTrackedReselectsWithNil": {
			reason: "deleting b re-selects w3 only, which sees nil and writes found=false",
			change: func(t *testing.T, ns string) {
				if err := cl.Delete(context.Background(), resourceGroup(ns, "b")); err != nil {
					t.Fatal(err)
				}
			},
			want: want{Selects: map[string]int{"w3": 1}, Renders: map[string]int{"w3": 1}, Writes: 1},
			check: func(t *testing.T, ns string, w *widgets) {
				w.mu.Lock()
				saw := w.sawGroup["w3"]
				w.mu.Unlock()
				if saw {
					t.Error("w3's last Select saw a ResourceGroup")
				}
				w3 := &unstructured.Unstructured{}
				w3.SetGroupVersionKind(widgetGVK)
				if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "w3"}, w3); err != nil {
					t.Fatal(err)
				}
				found, _, _ := unstructured.NestedBool(w3.Object, "status", "found")
				if found {
					t.Error("w3 status.found is still true")
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ns := namespace(t, "cfg")
			create(t, resourceGroup(ns, "a"), resourceGroup(ns, "b"),
				widget(ns, "w1", "a", "x"), widget(ns, "w2", "a"), widget(ns, "w3", "b"))
			w := &widgets{}
			run := start(t, ns, func(r *configurator.Registry) { _ = r.Watch(rgGVK, nil) }, w.kind())
			eventually(t, "initial renders", func() bool { return len(w.renders.snapshot()) == 3 })
			run.settle(t)
			s0, r0, w0 := w.selects.snapshot(), w.renders.snapshot(), run.writes.Load()
			st0 := run.reg.Stats()

			tc.change(t, ns)
			eventually(t, "the change to be handled", func() bool {
				return sum(delta(s0, w.selects.snapshot())) >= sum(tc.want.Selects)
			})
			run.settle(t)
			got := want{Selects: delta(s0, w.selects.snapshot()), Renders: delta(r0, w.renders.snapshot()), Writes: run.writes.Load() - w0}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(got.Writes, run.reg.Stats().Sub(st0).Writes()); diff != "" {
				t.Errorf("Stats().Writes() disagrees with the transport: -transport +stats:\n%s", diff)
			}
			if tc.check != nil {
				tc.check(t, ns, w)
			}
		})
	}
}

// TestRestartStillPrunes: a new registry (an operator restart, empty
// records) learns from the annotation what was declared before, and prunes
// it when it is no longer declared.
func TestRestartStillPrunes(t *testing.T) {
	ns := namespace(t, "restart")
	create(t, resourceGroup(ns, "a"), widget(ns, "w1", "a", "x", "y"))
	w := &widgets{}
	first := start(t, ns, nil, w.kind())
	eventually(t, "ConfigMaps x and y", func() bool {
		return cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "y"}, cm()) == nil
	})
	first.settle(t)

	first.stop()

	w2 := &widgets{}
	second := start(t, ns, nil, w2.kind())
	eventually(t, "the first render after restart", func() bool { return len(w2.renders.snapshot()) == 1 })
	second.settle(t)
	if diff := cmp.Diff(configurator.Stats{Selects: 1, Renders: 1, Applies: 2}, second.reg.Stats()); diff != "" {
		t.Errorf("first run after restart re-applies each declared resource once and writes no unchanged status; -want +got:\n%s", diff)
	}
	mutate(t, widgetGVK, ns, "w1", false, func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(u.Object, []any{"x"}, "spec", "children")
	})
	eventually(t, "y to be pruned", func() bool {
		return apierrors.IsNotFound(cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "y"}, cm()))
	})
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "x"}, cm()); err != nil {
		t.Errorf("ConfigMap x: %v", err)
	}
}

// TestRecordsEndpoint reads the managed data structure over HTTP.
func TestRecordsEndpoint(t *testing.T) {
	ns := namespace(t, "records")
	create(t, resourceGroup(ns, "a"), widget(ns, "w1", "a", "x"), widget(ns, "w2", "missing"))
	w := &widgets{}
	run := start(t, ns, nil, w.kind())
	eventually(t, "renders", func() bool { return len(w.renders.snapshot()) == 2 })
	run.settle(t)

	srv := httptest.NewServer(run.reg.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + configurator.RecordsPath + "?kind=Widget.test.armature.dev")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var recs configurator.Records
	if err := json.NewDecoder(resp.Body).Decode(&recs); err != nil {
		t.Fatal(err)
	}
	type view struct {
		Found    bool
		Status   configurator.Status
		Children []string
	}
	got := map[string]view{}
	for name, rec := range recs["Widget.test.armature.dev"] {
		var found bool
		for _, rd := range rec.Selected.Tracked["ResourceGroup.resources.azure.armature.dev"] {
			found = rd.Found
		}
		v := view{Found: found, Status: rec.Rendered.Status}
		for _, c := range rec.Rendered.Resources {
			v.Children = append(v.Children, c.Kind+"/"+c.Name)
		}
		got[name] = v
	}
	want := map[string]view{
		ns + "/w1": {Found: true, Status: configurator.Status{"found": true, "ready": false}, Children: []string{"ConfigMap/x"}},
		ns + "/w2": {Found: false, Status: configurator.Status{"found": false, "ready": false}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}

func cm() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(cmGVK)
	return u
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
