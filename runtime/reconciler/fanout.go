package reconciler

import (
	"context"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// A controller watches more than its own kind: its owner kind (an owner
// turning Ready requeues its children), every served kind when it is an
// extension kind (an object of any kind requeues what it owns by group,
// kind and name), its references' target kinds (every served kind for a
// reference without a target list), the objects its valuesFrom reads, and
// Secrets. A watch per controller and watched kind is an informer
// listener each (two goroutines and a buffer): with every kind of the
// wide corpus served, the extension kinds alone made some 27,000 of them.
//
// The fan-out is one handler on each served kind's informer and one on
// Secrets. It passes an event to the controllers that want it, straight
// into their work queues (a source.Func hands the fan-out a controller's
// queue when the controller starts), with the predicates the watches had:
// an object of another kind counts when it comes Ready, when its
// readiness changes and when it goes; a Secret when it comes or changes
// after the informer's first list. Who wants which kind is known when
// SetupServing builds the reconcilers and does not change; an event is
// passed only to controllers of served kinds.
type fanout struct {
	cache  cache.Informers
	served *kindSet
	values *sourceTracker

	byKind  map[schema.GroupKind][]fanSub // an owner kind, a reference's target kind
	anyKind []fanSub                      // every served kind
	secrets []fanSub

	mu       sync.Mutex
	ctx      context.Context // the fan-out's, once started
	handlers map[schema.GroupVersionKind]toolscache.ResourceEventHandlerRegistration
	pending  []schema.GroupVersionKind // served before Start

	qmu    sync.RWMutex
	queues map[schema.GroupKind]workqueue.TypedRateLimitingInterface[reconcile.Request]
}

// fanSub is one controller's want: the requests an object of a watched
// kind (or a Secret) makes for the controller of kind.
type fanSub struct {
	kind     schema.GroupKind
	requests func(context.Context, client.Object) []reconcile.Request
}

func newFanout(c cache.Informers, served *kindSet, values *sourceTracker) *fanout {
	return &fanout{cache: c, served: served, values: values,
		byKind:   map[schema.GroupKind][]fanSub{},
		handlers: map[schema.GroupVersionKind]toolscache.ResourceEventHandlerRegistration{},
		queues:   map[schema.GroupKind]workqueue.TypedRateLimitingInterface[reconcile.Request]{},
	}
}

// subscribe records what r's controller watches of other kinds.
func (f *fanout) subscribe(r *Reconciler) {
	self := r.gvk().GroupKind()
	if r.Desc.OwnerKind != "" && r.OwnerVersion != "" {
		owner := schema.GroupKind{Group: r.Desc.OwnerGroup, Kind: r.Desc.OwnerKind}
		f.byKind[owner] = append(f.byKind[owner], fanSub{self, r.children})
	}
	if r.isExtension() {
		f.anyKind = append(f.anyKind, fanSub{self, r.extensionChildren})
	}
	if targets, all := r.targetKinds(); all {
		f.anyKind = append(f.anyKind, fanSub{self, r.referrers})
	} else {
		for _, gk := range targets {
			f.byKind[gk] = append(f.byKind[gk], fanSub{self, r.referrers})
		}
	}
	f.secrets = append(f.secrets, fanSub{self, r.secretReferrers})
}

// targetKinds are the kinds r's references may name; all when one of them
// has no target list.
func (r *Reconciler) targetKinds() (targets []schema.GroupKind, all bool) {
	for _, ref := range r.Desc.References {
		if len(ref.Targets) == 0 {
			return nil, true
		}
		for _, t := range ref.Targets {
			g, k, _ := strings.Cut(t, "/")
			if gk := (schema.GroupKind{Group: g, Kind: k}); !slices.Contains(targets, gk) {
				targets = append(targets, gk)
			}
		}
	}
	return targets, false
}

// source hands the fan-out the work queue of kind gk's controller.
func (f *fanout) source(gk schema.GroupKind) source.Source {
	return source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		f.qmu.Lock()
		defer f.qmu.Unlock()
		f.queues[gk] = q
		return nil
	})
}

// enqueue adds req to the queue of kind gk's controller; nothing before
// the controller starts (its first list reconciles everything).
func (f *fanout) enqueue(gk schema.GroupKind, req reconcile.Request) {
	f.qmu.RLock()
	q := f.queues[gk]
	f.qmu.RUnlock()
	if q != nil {
		q.Add(req)
	}
}

// Start watches Secrets and the kinds served before it, and runs until
// ctx ends.
func (f *fanout) Start(ctx context.Context) error {
	secret := &metav1.PartialObjectMetadata{}
	secret.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	inf, err := f.cache.GetInformer(ctx, secret)
	if err != nil {
		return err
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(cur any, initial bool) {
			if o, ok := cur.(client.Object); ok && !initial {
				f.send(ctx, f.secrets, nil, o)
			}
		},
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(client.Object)
			n, ok2 := cur.(client.Object)
			if ok1 && ok2 && o.GetResourceVersion() != n.GetResourceVersion() {
				f.send(ctx, f.secrets, nil, n)
			}
		},
	}); err != nil {
		return err
	}
	f.mu.Lock()
	f.ctx = ctx
	pending := f.pending
	f.pending = nil
	f.mu.Unlock()
	for _, gvk := range pending {
		if err := f.add(ctx, gvk); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}

// NeedLeaderElection implements manager.LeaderElectionRunnable: the
// fan-out requeues, which only the leader does.
func (f *fanout) NeedLeaderElection() bool { return true }

// add puts the fan-out's handler on gvk's informer, once.
func (f *fanout) add(ctx context.Context, gvk schema.GroupVersionKind) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx == nil {
		if !slices.Contains(f.pending, gvk) {
			f.pending = append(f.pending, gvk)
		}
		return nil
	}
	if _, ok := f.handlers[gvk]; ok {
		return nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	inf, err := f.cache.GetInformer(ctx, obj)
	if err != nil {
		return err
	}
	fctx, gk := f.ctx, gvk.GroupKind()
	subs := f.byKind[gk]
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(cur any) {
			if n, ok := cur.(*unstructured.Unstructured); ok {
				f.values.notify(fctx, gvk.Kind, n)
				if ready(n) {
					f.send(fctx, subs, f.anyKind, n)
				}
			}
		},
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(*unstructured.Unstructured)
			n, ok2 := cur.(*unstructured.Unstructured)
			if !ok1 || !ok2 {
				return
			}
			if statusChanged(o, n) {
				f.values.notify(fctx, gvk.Kind, n)
			}
			if ReadinessChanged(o, n) {
				f.send(fctx, subs, f.anyKind, n)
			}
		},
		DeleteFunc: func(old any) {
			if d, ok := old.(toolscache.DeletedFinalStateUnknown); ok {
				old = d.Obj
			}
			if o, ok := old.(*unstructured.Unstructured); ok {
				f.values.notify(fctx, gvk.Kind, o)
				f.send(fctx, subs, f.anyKind, o)
			}
		},
	})
	if err != nil {
		return err
	}
	f.handlers[gvk] = reg
	return nil
}

// remove forgets gvk (its informer is removed with the handler).
func (f *fanout) remove(gvk schema.GroupVersionKind) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.handlers, gvk)
	f.pending = slices.DeleteFunc(f.pending, func(k schema.GroupVersionKind) bool { return k == gvk })
}

// send adds to the queue of every served controller of subs and more the
// requests obj makes for it.
func (f *fanout) send(ctx context.Context, subs, more []fanSub, obj client.Object) {
	for _, list := range [][]fanSub{subs, more} {
		for _, s := range list {
			if !f.served.has(s.kind) {
				continue
			}
			f.qmu.RLock()
			q := f.queues[s.kind]
			f.qmu.RUnlock()
			if q == nil {
				continue // not started yet: its first list reconciles everything
			}
			for _, req := range s.requests(ctx, obj) {
				q.Add(req)
			}
		}
	}
}
