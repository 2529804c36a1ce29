package configurator

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Index is the reverse index of tracked reads: tracked resource → the
// resources whose last Select read it. It is safe for concurrent use. The
// Registry keeps one; a controller that is not a Registry (the generic
// reconciler) can keep its own and use Track and EnqueueDependents.
type Index struct {
	mu         sync.RWMutex
	dependents map[Ref]map[Ref]struct{} // tracked → dependents
	tracks     map[Ref]map[Ref]struct{} // dependent → tracked
}

// NewIndex returns an empty Index.
func NewIndex() *Index {
	return &Index{dependents: map[Ref]map[Ref]struct{}{}, tracks: map[Ref]map[Ref]struct{}{}}
}

// Dependents returns the resources that tracked t, sorted.
func (x *Index) Dependents(t Ref) []Ref {
	x.mu.RLock()
	out := make([]Ref, 0, len(x.dependents[t]))
	for d := range x.dependents[t] {
		out = append(out, d)
	}
	x.mu.RUnlock()
	sortRefs(out)
	return out
}

// Tracked returns the resources dependent tracked, sorted.
func (x *Index) Tracked(dependent Ref) []Ref {
	x.mu.RLock()
	out := make([]Ref, 0, len(x.tracks[dependent]))
	for t := range x.tracks[dependent] {
		out = append(out, t)
	}
	x.mu.RUnlock()
	sortRefs(out)
	return out
}

// Forget drops every edge of dependent (it was deleted, or is no longer
// selected).
func (x *Index) Forget(dependent Ref) { x.retain(dependent, nil) }

// add records that dependent reads t. It is called before the read, so a
// change that lands after the read always finds the edge.
func (x *Index) add(dependent, t Ref) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.dependents[t] == nil {
		x.dependents[t] = map[Ref]struct{}{}
	}
	x.dependents[t][dependent] = struct{}{}
	if x.tracks[dependent] == nil {
		x.tracks[dependent] = map[Ref]struct{}{}
	}
	x.tracks[dependent][t] = struct{}{}
}

// retain drops the edges of dependent to anything not in keep.
func (x *Index) retain(dependent Ref, keep map[Ref]TrackedRead) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for t := range x.tracks[dependent] {
		if _, ok := keep[t]; ok {
			continue
		}
		delete(x.tracks[dependent], t)
		delete(x.dependents[t], dependent)
		if len(x.dependents[t]) == 0 {
			delete(x.dependents, t)
		}
	}
	if len(x.tracks[dependent]) == 0 {
		delete(x.tracks, dependent)
	}
}

// Track starts a tracked read for dependent: every Of through the returned
// Tracker reads r and records an edge; Done drops the edges of the previous
// run that this one did not read. One dependent must not be tracked by two
// runs at once (a work queue guarantees it).
func (x *Index) Track(ctx context.Context, r client.Reader, dependent Ref) *Tracker {
	return &Tracker{ctx: ctx, reader: r, index: x, self: dependent, reads: map[Ref]TrackedRead{}, seen: map[Ref]*Resource{}}
}

// EnqueueDependents is a controller-runtime event handler for a watch on
// the tracked kind trackedGVK: a change a dependent can see (not a
// resourceVersion- or managedFields-only update), a creation or a deletion
// enqueues every dependent of kind dependentGVK that tracked the object.
// Creations from the initial list are ignored: whoever read the object
// read it after that list.
func (x *Index) EnqueueDependents(trackedGVK, dependentGVK schema.GroupVersionKind) handler.EventHandler {
	enqueue := func(obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		t := Ref{GroupVersionKind: trackedGVK, Namespace: obj.GetNamespace(), Name: obj.GetName()}
		for _, d := range x.Dependents(t) {
			if d.GroupVersionKind == dependentGVK {
				q.Add(reconcile.Request{NamespacedName: client.ObjectKey{Namespace: d.Namespace, Name: d.Name}})
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if !e.IsInInitialList {
				enqueue(e.Object, q)
			}
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			old, errOld := asUnstructured(e.ObjectOld)
			cur, errNew := asUnstructured(e.ObjectNew)
			if errOld != nil || errNew != nil || visibleChanged(old, cur) {
				enqueue(e.ObjectNew, q)
			}
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.Object, q)
		},
	}
}

func asUnstructured(obj client.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// TrackedRead is what the records keep of one tracked read: whether the
// resource was there, and which version with which content digest.
type TrackedRead struct {
	Found           bool   `json:"found"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Generation      int64  `json:"generation,omitempty"`
	Digest          string `json:"digest,omitempty"`
}

// Tracker is the view Select reads other resources through. Every read is
// recorded: a later change of what was read re-selects the reader.
type Tracker struct {
	ctx    context.Context
	reader client.Reader
	index  *Index
	self   Ref
	// before runs before a read of a kind, once per kind and Tracker: the
	// Registry starts the kind's informer there.
	before func(context.Context, schema.GroupVersionKind) error
	reads  map[Ref]TrackedRead
	seen   map[Ref]*Resource
	errs   []error
}

// Of returns the resource of kind gvk named name, or nil when it does not
// exist, and records the read. name is "name" (in the namespace of the
// resource being selected), "namespace/name", or "/name" for a
// cluster-scoped resource; the namespace must be one the cache serves. Reading the
// same resource twice in one Select returns the same *Resource. A read that
// fails for another reason than not-found returns nil and makes the whole
// Select fail (see Err), so a cache error is never mistaken for a deletion.
// An empty name reads nothing and returns nil.
func (t *Tracker) Of(gvk schema.GroupVersionKind, name string) *Resource {
	ref := Ref{GroupVersionKind: gvk, Namespace: t.self.Namespace, Name: name}
	if ns, n, ok := strings.Cut(name, "/"); ok {
		ref.Namespace, ref.Name = ns, n
	}
	if ref.Name == "" {
		return nil
	}
	if r, ok := t.seen[ref]; ok {
		return r
	}
	if t.before != nil {
		if err := t.before(t.ctx, gvk); err != nil {
			t.errs = append(t.errs, fmt.Errorf("watch %s: %w", kindKey(gvk), err))
			return nil
		}
	}
	t.index.add(t.self, ref)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	err := t.reader.Get(t.ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, u)
	var res *Resource
	switch {
	case apierrors.IsNotFound(err):
		t.reads[ref] = TrackedRead{}
	case err != nil:
		t.reads[ref] = TrackedRead{}
		t.errs = append(t.errs, fmt.Errorf("read %s: %w", ref, err))
	default:
		u.SetGroupVersionKind(gvk)
		res = NewResource(u)
		t.reads[ref] = TrackedRead{Found: true, ResourceVersion: u.GetResourceVersion(), Generation: u.GetGeneration(), Digest: digest(u)}
	}
	t.seen[ref] = res
	return res
}

// Self is the resource this Tracker reads for.
func (t *Tracker) Self() Ref { return t.self }

// Err is the joined error of the reads that failed, or nil.
func (t *Tracker) Err() error { return errors.Join(t.errs...) }

// Reads returns what was read so far, by Ref. Do not modify it.
func (t *Tracker) Reads() map[Ref]TrackedRead { return t.reads }

// Done ends the run: edges of earlier runs to resources this run did not
// read are dropped. Edges of reads that failed are kept.
func (t *Tracker) Done() { t.index.retain(t.self, t.reads) }

func sortRefs(refs []Ref) {
	sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
}
