package configurator

import (
	"context"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	groupGVK  = schema.GroupVersionKind{Group: "test.armature.dev", Version: "v1", Kind: "Group"}
	widgetGVK = schema.GroupVersionKind{Group: "test.armature.dev", Version: "v1", Kind: "Widget"}
	cmGVK     = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
)

// fixture is a Registry with the Widget kind on a mem apiserver. A Widget
// tracks the Group named by spec.group; its output is the group's
// readiness, location and "note" annotation plus its own spec.children; its
// Render declares one ConfigMap per child holding the location, and
// reports {found, ready} in status (the note is selected but not rendered,
// so a note change renders without writing).
type fixture struct {
	t       testing.TB
	ctx     context.Context
	m       *mem
	reg     *Registry
	mu      sync.Mutex
	selects map[string]int
	renders map[string]int
	seen    map[string]*Resource // the group each widget's last Select saw
}

func newFixture(t testing.TB, m *mem) *fixture {
	t.Helper()
	if m == nil {
		m = newMem()
	}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ctx: context.Background(), m: m, selects: map[string]int{}, renders: map[string]int{}, seen: map[string]*Resource{}}
	f.reg = New(memClient{m: m, scheme: scheme}, m)
	if err := f.reg.Watch(groupGVK, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.reg.Register(f.kind()); err != nil {
		t.Fatal(err)
	}
	if err := f.reg.install(f.ctx); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) kind() Kind {
	return Kind{
		GVK: widgetGVK,
		Select: func(ix *Tracker, in *Resource) (Selected, error) {
			g := ix.Of(groupGVK, in.String("spec.group"))
			f.mu.Lock()
			f.selects[in.Name]++
			f.seen[in.Name] = g
			f.mu.Unlock()
			children, _ := in.Spec["children"].([]any)
			sel := Selected{"children": append([]any(nil), children...), "found": g != nil, "ready": false, "location": "", "note": ""}
			if g != nil {
				sel["ready"], sel["location"], sel["note"] = g.Ready(), g.String("spec.location"), g.Annotations["note"]
			}
			return sel, nil
		},
		Render: func(ix *Renderer, sel Selected) (Status, error) {
			f.mu.Lock()
			f.renders[ix.Name()]++
			f.mu.Unlock()
			for _, c := range sel["children"].([]any) {
				ix.Resource(&unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": c.(string)},
					"data":     map[string]any{"location": sel["location"]},
				}})
			}
			return Status{"found": sel["found"], "ready": sel["ready"]}, nil
		},
	}
}

// drain runs the queue until it is empty, on this goroutine.
func (f *fixture) drain() {
	for f.reg.queue.Len() > 0 {
		f.reg.processNext(f.ctx)
	}
}

func (f *fixture) counts() (map[string]int, map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, r := map[string]int{}, map[string]int{}
	for k, v := range f.selects {
		s[k] = v
	}
	for k, v := range f.renders {
		r[k] = v
	}
	return s, r
}

func group(name string, ready bool) *unstructured.Unstructured {
	status := "False"
	if ready {
		status = "True"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.armature.dev/v1", "kind": "Group",
		"metadata": map[string]any{"name": name, "namespace": "ns"},
		"spec":     map[string]any{"location": "westeurope"},
		"status":   map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": status}}},
	}}
}

func widget(name, groupName string, children ...string) *unstructured.Unstructured {
	cs := make([]any, len(children))
	for i, c := range children {
		cs[i] = c
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.armature.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": "ns"},
		"spec":     map[string]any{"group": groupName, "children": cs},
	}}
}

func ref(gvk schema.GroupVersionKind, name string) Ref {
	return Ref{GroupVersionKind: gvk, Namespace: "ns", Name: name}
}
