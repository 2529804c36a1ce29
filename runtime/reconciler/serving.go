package reconciler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"golang.org/x/sync/errgroup"
)

// kindSet is the set of kinds served now (group and kind → the storage
// version reconciled), shared by every reconciler of one Serving: what
// one kind lists or watches of another is limited to it, so a kind whose
// CRD is not installed costs nothing and logs nothing. A nil kindSet is
// empty.
type kindSet struct {
	mu sync.RWMutex
	m  map[schema.GroupKind]string
}

func newKindSet(m map[schema.GroupKind]string) *kindSet {
	s := &kindSet{m: map[schema.GroupKind]string{}}
	for gk, v := range m {
		s.m[gk] = v
	}
	return s
}

// version is the served version of gk.
func (s *kindSet) version(gk schema.GroupKind) (string, bool) {
	if s == nil {
		return "", false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.m[gk]
	return v, ok
}

func (s *kindSet) has(gk schema.GroupKind) bool {
	_, ok := s.version(gk)
	return ok
}

// list is every served kind, sorted.
func (s *kindSet) list() []schema.GroupVersionKind {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	out := make([]schema.GroupVersionKind, 0, len(s.m))
	for gk, v := range s.m {
		out = append(out, gk.WithVersion(v))
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	return out
}

func (s *kindSet) set(gk schema.GroupKind, v string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.m[gk] = v
	} else {
		delete(s.m, gk)
	}
}

// Serving starts the controllers of kinds as they become served and
// stops serving them when they go, without a restart (the operator calls
// Serve when a kind's CRD is established and Unserve when it is deleted).
// Every kind SetupServing was given has its reconciler built from the
// start; serving a kind:
//   - indexes its objects and starts its controller (once; later serves
//     give the running controller its watches again);
//   - puts the fan-out's handler on the kind's informer (fanout.go): the
//     served controllers that watch the kind (an owner, any owner of an
//     extension kind, a reference's target, a valuesFrom source) hear of
//     its objects through it, and the kind's controller, subscribed from
//     the start, hears of the served kinds it watches;
//   - calls OnServe's hooks (Actions watch their targets).
//
// Unserve forgets the kind: others stop listing it, its informer (and with
// it every handler on it) is removed from the cache, and what its
// controller still has queued is dropped.
type Serving struct {
	mgr    ctrl.Manager
	main   map[schema.GroupKind]*Reconciler
	served *kindSet
	fan    *fanout

	mu      sync.Mutex
	ctrls   map[schema.GroupKind]controller.Controller
	forOn   map[schema.GroupKind]bool // the controller watches its own kind
	hooks   []func(context.Context, schema.GroupVersionKind) error
	unhooks []func(schema.GroupKind)

	// The controllers and drift observers Serve makes are run by s, not
	// added to the manager: controller-runtime's Add can deadlock with a
	// manager that is stopping (Add holds the runnable group's read lock
	// while it hands the runnable over; the goroutine that takes it wants
	// the same read lock behind the stop's write lock), and kinds are
	// served at any time, shutdown included.
	ctx     context.Context // set by Start; nil before
	pending []manager.Runnable
	running sync.WaitGroup
	failed  chan error // the first runnable that ends in error
}

// Start runs the controllers and observers of the kinds served, those
// served before it and those served while it runs, until ctx ends; then
// it waits for them to stop. One of them failing (a cache that does not
// sync in time) stops them all and fails the manager, as a controller
// added to the manager does.
func (s *Serving) Start(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.ctx = ctx
	for _, rn := range s.pending {
		s.runLocked(rn)
	}
	s.pending = nil
	s.mu.Unlock()
	var err error
	select {
	case <-ctx.Done():
	case err = <-s.failed:
	}
	cancel()
	s.running.Wait()
	return err
}

// NeedLeaderElection implements manager.LeaderElectionRunnable: only the
// leader reconciles.
func (s *Serving) NeedLeaderElection() bool { return true }

// runLocked starts rn now if s runs, or at Start; nothing once s stops.
// s.mu is held.
func (s *Serving) runLocked(rn manager.Runnable) {
	switch {
	case s.ctx == nil:
		s.pending = append(s.pending, rn)
	case s.ctx.Err() != nil:
	default:
		ctx := s.ctx
		s.running.Add(1)
		go func() {
			defer s.running.Done()
			if err := rn.Start(ctx); err != nil && ctx.Err() == nil {
				select {
				case s.failed <- err:
				default:
				}
			}
		}()
	}
}

// Kinds is every kind s can serve (the storage versions), sorted.
func (s *Serving) Kinds() []schema.GroupVersionKind {
	out := make([]schema.GroupVersionKind, 0, len(s.main))
	for _, r := range s.main {
		out = append(out, r.gvk())
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// Served is every kind served now, sorted.
func (s *Serving) Served() []schema.GroupVersionKind { return s.served.list() }

// IsServed says whether gk is served now.
func (s *Serving) IsServed(gk schema.GroupKind) bool { return s.served.has(gk) }

// OnServe calls serve for every kind served from now on, and unserve when
// it goes (Actions add a watch on the kind). Call it before the first
// Serve.
func (s *Serving) OnServe(serve func(context.Context, schema.GroupVersionKind) error, unserve func(schema.GroupKind)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = append(s.hooks, serve)
	if unserve != nil {
		s.unhooks = append(s.unhooks, unserve)
	}
}

// Serve starts serving gk (a kind SetupServing was given; an error
// otherwise). Serving a served kind does nothing. Serve may be called for
// several kinds at once, not for one kind twice at once.
func (s *Serving) Serve(ctx context.Context, gk schema.GroupKind) error {
	r := s.main[gk]
	if r == nil {
		return fmt.Errorf("kind %s is not one of the operator's", gk)
	}
	if s.served.has(gk) {
		return nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(r.gvk())
	// The kind's indexes, on its informer, before any handler lists by
	// them. This waits for the informer's first list: outside the lock,
	// so that kinds served at once list together.
	if err := r.index(ctx, s.mgr.GetFieldIndexer(), obj); err != nil {
		return fmt.Errorf("%s: %w", gk, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.served.has(gk) {
		return nil
	}
	s.served.set(gk, r.Desc.Version, true)
	c := s.ctrls[gk]
	if c == nil {
		var err error
		if c, err = s.newController(r); err != nil {
			s.served.set(gk, "", false)
			return fmt.Errorf("%s: %w", gk, err)
		}
		s.ctrls[gk] = c
	}
	if !s.forOn[gk] {
		if err := c.Watch(source.Kind[client.Object](s.mgr.GetCache(), obj, &handler.EnqueueRequestForObject{}, forPredicates())); err != nil {
			return fmt.Errorf("%s: %w", gk, err)
		}
		s.forOn[gk] = true
	}
	// The fan-out's handler on the kind: what other kinds watch of it
	// and the valuesFrom readers of its objects.
	if err := s.fan.add(ctx, r.gvk()); err != nil {
		return fmt.Errorf("%s: fan-out: %w", gk, err)
	}
	for _, h := range s.hooks {
		if err := h(ctx, r.gvk()); err != nil {
			return fmt.Errorf("%s: %w", gk, err)
		}
	}
	log.FromContext(ctx).Info("serving kind", "kind", gk.String(), "version", r.Desc.Version)
	return nil
}

// Unserve stops serving gk. Unserving a kind not served does nothing.
func (s *Serving) Unserve(ctx context.Context, gk schema.GroupKind) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.main[gk]
	if r == nil || !s.served.has(gk) {
		return nil
	}
	s.served.set(gk, "", false)
	// The informer goes with every handler on it: the kind's own (its
	// controller's For) and the others' watches of the kind.
	s.forOn[gk] = false
	s.fan.remove(r.gvk())
	for _, h := range s.unhooks {
		h(gk)
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(r.gvk())
	if err := s.mgr.GetCache().RemoveInformer(ctx, obj); err != nil {
		return fmt.Errorf("%s: %w", gk, err)
	}
	log.FromContext(ctx).Info("no longer serving kind: its CRD is gone", "kind", gk.String())
	return nil
}

// newController makes the kind's controller, with the one watch it keeps
// whatever is served: the fan-out's, which hands it the controller's work
// queue. Everything else that requeues the kind's objects adds to that
// queue: other kinds' objects and Secrets (fanout.go), the valuesFrom
// tracker (sources.go) and the kind's drift observer (observer.go), which
// runs with the controller.
func (s *Serving) newController(r *Reconciler) (controller.Controller, error) {
	name := strings.ToLower(r.Desc.Kind + "." + r.Desc.Group)
	opts := controller.Options{Reconciler: r, MaxConcurrentReconciles: r.Config.WorkersPerKind}
	opts.DefaultFromConfig(s.mgr.GetControllerOptions())
	c, err := controller.NewUnmanaged(name, opts)
	if err != nil {
		return nil, err
	}
	r.claimKind = r.gvk()
	for _, v := range r.versions {
		v.claimKind = r.gvk()
	}
	if err := c.Watch(s.fan.source(r.gvk().GroupKind())); err != nil {
		return nil, err
	}
	if r.hasLists() {
		gk := r.gvk().GroupKind()
		s.runLocked(newObserver(r, func(req reconcile.Request) { s.fan.enqueue(gk, req) }))
	}
	s.runLocked(c)
	return c, nil
}

// forPredicates are the predicates of a controller's own kind
// (builderPredicates).
func forPredicates() predicate.Predicate { return reconcilePredicate }

// serveAll serves kinds once the manager starts (leader elected): what
// SetupAll does for callers that install every CRD first.
type serveAll struct {
	s     *Serving
	kinds []schema.GroupKind
}

func (a serveAll) NeedLeaderElection() bool { return true }

func (a serveAll) Start(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(ServeConcurrency)
	for _, gk := range a.kinds {
		g.Go(func() error { return a.s.Serve(ctx, gk) })
	}
	return g.Wait()
}

// ServeConcurrency is how many kinds are best served at once: each waits
// for its informer's first list.
const ServeConcurrency = 16
