package reconciler

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/runtime/arm"
)

// observer is the drift observer of one kind: every sync period it reads
// the live state of the kind's settled objects with one paged LIST per
// collection (the resources of one type below one parent: a resource
// group's storage accounts, an account's blob services) instead of a GET
// per object, and requeues — with a forced GET — only the objects whose
// live body differs from their status, or that the list lacks. Objects of
// a collection the API cannot list keep their own GET every sync period.
type observer struct {
	r *Reconciler
	// enqueue adds a request to the kind's work queue.
	enqueue func(reconcile.Request)
	// first is the delay of the first pass after the start.
	first time.Duration
}

func newObserver(r *Reconciler, enqueue func(reconcile.Request)) *observer {
	return &observer{r: r, enqueue: enqueue, first: r.Config.FirstObservation}
}

// collectionOf is the collection a resource id belongs to: the id without
// its name.
func collectionOf(id string) string {
	id = strings.TrimSuffix(id, "/")
	return id[:strings.LastIndexByte(id, '/')]
}

// NeedLeaderElection implements manager.LeaderElectionRunnable: only the
// leader observes.
func (o *observer) NeedLeaderElection() bool { return true }

// Start implements manager.Runnable: a pass shortly after the start (what
// changed while no operator ran), then one every sync period, jittered.
func (o *observer) Start(ctx context.Context) error {
	t := time.NewTimer(o.jitter(o.first))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			o.pass(ctx)
			t.Reset(o.jitter(o.r.Config.SyncPeriod))
		}
	}
}

func (o *observer) jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (1 + o.r.Config.Jitter*(2*rand.Float64()-1)))
}

// listKey is one LIST: a collection at an api-version, with a credential.
type listKey struct{ collection, apiVersion, credential string }

// listGroup is what one LIST answers for.
type listGroup struct {
	lister arm.Lister
	objs   []*unstructured.Unstructured
}

// pass lists every collection that holds settled objects once and
// requeues the objects that changed.
func (o *observer) pass(ctx context.Context) {
	logger := log.FromContext(ctx).WithValues("kind", o.r.Desc.Kind)
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(o.r.gvk().GroupVersion().WithKind(o.r.Desc.Kind + "List"))
	if err := o.r.Client.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		logger.Error(err, "drift observer: list custom resources")
		return
	}
	groups := map[listKey]*listGroup{}
	for i := range list.Items {
		obj := &list.Items[i]
		id := observedID(obj)
		if id == "" || !obj.GetDeletionTimestamp().IsZero() || inFlight(obj) {
			continue // not created, going, or busy: its own reconciles see it
		}
		if !o.r.listed(id) {
			continue
		}
		b, err := o.r.binding(ctx, obj)
		lister, ok := b.Client.(arm.Lister)
		if err != nil || !ok {
			continue // its credential is broken: its own reconciles say so
		}
		k := listKey{collection: collectionOf(id), apiVersion: o.r.reconcilerFor(obj).Desc.APIVersion, credential: b.Name}
		g := groups[k]
		if g == nil {
			g = &listGroup{lister: lister}
			groups[k] = g
		}
		g.objs = append(g.objs, obj)
	}
	observerPasses.WithLabelValues(o.r.Desc.Kind).Inc()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for k, g := range groups {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			o.observe(ctx, k, g)
		}()
	}
	wg.Wait()
}

// observe lists one collection and requeues the objects that changed.
func (o *observer) observe(ctx context.Context, k listKey, g *listGroup) {
	objs := g.objs
	live := map[string]map[string]any{}
	err := g.lister.List(arm.WithPriority(ctx, arm.PriorityLow), k.collection, k.apiVersion, func(items []map[string]any) error {
		for _, it := range items {
			if id, _ := it["id"].(string); id != "" {
				live[strings.ToLower(id)] = it
			}
		}
		return nil
	})
	observeARM("LIST", err)
	if err != nil {
		// Cannot list (no permission, throttled…): the objects are read
		// one by one, as without the observer.
		log.FromContext(ctx).Info("drift observer: list failed; reading each resource", "collection", k.collection, "error", err.Error())
		for _, obj := range objs {
			o.requeue(obj)
		}
		return
	}
	for _, obj := range objs {
		item, ok := live[strings.ToLower(observedID(obj))]
		if !ok || changed(obj, normalize(o.r.reconcilerFor(obj).Desc, item)) {
			o.requeue(obj)
		}
	}
}

// requeue adds an object to its reconciler's queue, with a forced GET.
func (o *observer) requeue(obj *unstructured.Unstructured) {
	o.r.mem.markForce(obj.GetUID())
	observerRequeues.WithLabelValues(o.r.Desc.Kind).Inc()
	o.enqueue(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}})
}

// observedID is the ARM id an object's status describes.
func observedID(obj *unstructured.Unstructured) string {
	if id, _, _ := unstructured.NestedString(obj.Object, "status", "id"); id != "" {
		return id
	}
	return ""
}

// changed reports whether a listed body (normalized) says something the
// object's status does not, member by top-level member, on the status's
// digest: a member the status lacks or holds another value of. Members the
// list leaves out are not compared: some APIs list less than they GET
// (status reads such as instanceView are never listed).
func changed(obj *unstructured.Unstructured, item map[string]any) bool {
	status, _ := obj.Object["status"].(map[string]any)
	return !subsetDigest(digest(item), digestOf(status))
}

// takeForced reports, once, whether the drift observer asked for this
// object to be read from ARM.
func (r *Reconciler) takeForced(uid types.UID) bool {
	return r.mem.takeForce(uid)
}

type forcedKey struct{}

func withForced(ctx context.Context) context.Context {
	return context.WithValue(ctx, forcedKey{}, true)
}

func forced(ctx context.Context) bool { f, _ := ctx.Value(forcedKey{}).(bool); return f }

// reconcilerFor is the reconciler of the version obj is reconciled in.
func (r *Reconciler) reconcilerFor(obj *unstructured.Unstructured) *Reconciler {
	if other, ok := r.versions[r.versionFor(obj)]; ok {
		return other
	}
	return r
}
