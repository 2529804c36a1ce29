package configurator

import (
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
)

// handler is the informer event handler of one kind. It plays two roles:
//   - for a registered kind, it queues the resource itself when its spec
//     (generation) or status changed, or when it started or stopped
//     matching the selector; metadata-only updates, and status updates that
//     only echo what Render wrote, queue nothing;
//   - for any kind, it queues the dependents of the object (Index) when
//     something they can see changed, or it was created or deleted.
func (r *Registry) handler(gvk schema.GroupVersionKind) toolscache.ResourceEventHandler {
	kind := r.kinds[gvk]
	sel := r.watches[gvk]
	if sel == nil {
		sel = labels.Everything()
	}
	matches := func(u *unstructured.Unstructured) bool { return sel.Matches(labels.Set(u.GetLabels())) }
	ref := func(u *unstructured.Unstructured) Ref {
		return Ref{GroupVersionKind: gvk, Namespace: u.GetNamespace(), Name: u.GetName()}
	}
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return
			}
			if kind != nil && matches(u) {
				r.queue.Add(ref(u))
			}
			if !initial {
				r.enqueueDependents(ref(u))
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := oldObj.(*unstructured.Unstructured)
			cur, ok2 := newObj.(*unstructured.Unstructured)
			if !ok1 || !ok2 {
				return
			}
			if kind != nil {
				mOld, mNew := matches(old), matches(cur)
				if mOld != mNew || (mNew && r.selfChanged(ref(cur), old, cur)) {
					r.queue.Add(ref(cur))
				}
			}
			if visibleChanged(old, cur) {
				r.enqueueDependents(ref(cur))
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return
			}
			if kind != nil {
				r.queue.Add(ref(u))
			}
			r.enqueueDependents(ref(u))
		},
	}
}

// enqueueDependents queues the registered dependents of t.
func (r *Registry) enqueueDependents(t Ref) {
	for _, d := range r.index.Dependents(t) {
		if _, ok := r.kinds[d.GroupVersionKind]; ok {
			r.queue.Add(d)
		}
	}
}

// selfChanged: a new generation (spec), a status change that is not the
// echo of our own write, or for kinds without generation (ConfigMap,
// Secret) any change outside metadata.
func (r *Registry) selfChanged(ref Ref, old, cur *unstructured.Unstructured) bool {
	if old.GetGeneration() != cur.GetGeneration() || old.GetUID() != cur.GetUID() {
		return true
	}
	if cur.GetGeneration() == 0 && !reflect.DeepEqual(withoutMeta(old), withoutMeta(cur)) {
		return true
	}
	os, _ := old.Object["status"].(map[string]any)
	ns, _ := cur.Object["status"].(map[string]any)
	if reflect.DeepEqual(os, ns) {
		return false
	}
	return !r.isEcho(ref, os, ns)
}

func withoutMeta(u *unstructured.Unstructured) map[string]any {
	out := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		if k != "metadata" && k != "status" {
			out[k] = v
		}
	}
	return out
}

// echo is the status the registry last wrote on a resource (JSON-normal)
// and the keys it ever wrote there.
type echo struct {
	status Status
	owned  map[string]bool
}

// isEcho reports whether every status key that changed is one the
// registry writes and now holds what it wrote.
func (r *Registry) isEcho(ref Ref, old, cur map[string]any) bool {
	r.recMu.RLock()
	e, ok := r.echoes[ref]
	r.recMu.RUnlock()
	if !ok {
		return false
	}
	keys := map[string]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range cur {
		keys[k] = true
	}
	for k := range keys {
		if reflect.DeepEqual(old[k], cur[k]) {
			continue
		}
		if !e.owned[k] || !jsonEqual(cur[k], e.status[k]) {
			return false
		}
	}
	return true
}

// jsonEqual compares two values as JSON (int64 3 == float64 3).
func jsonEqual(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
