package configurator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Status is what Render returns: the status to write on the rendered
// resource. A nil Status leaves the status alone; a kind whose Render
// returns a non-nil one needs the status subresource.
type Status map[string]any

// Kind is the handler pair of one registered kind.
type Kind struct {
	// GVK is the kind handled. Required.
	GVK schema.GroupVersionKind
	// Select reads the resource and, through ix.Of, others; it runs when the
	// resource's spec or status changes and when anything it read changes.
	// Required.
	Select func(ix *Tracker, in *Resource) (Selected, error)
	// Render turns Select's output into a status and declared resources
	// (ix.Resource); it runs only when that output changed (Equal).
	// Required.
	Render func(ix *Renderer, sel Selected) (Status, error)
}

// Cache is what the registry needs of controller-runtime's cache: reads
// and per-kind informers. A manager's GetCache() is one.
type Cache interface {
	client.Reader
	GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error)
}

// Option configures a Registry.
type Option func(*options)

type options struct {
	name           string
	fieldOwner     string
	workers        int
	leaderElection bool
	rateLimiter    workqueue.TypedRateLimiter[Ref]
	log            logr.Logger
	index          *Index
}

// WithName names the registry in its work queue metrics and logs.
// Defaults to "configurator".
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithFieldOwner is the server-side apply field manager of declared
// resources. Defaults to "armature-configurator".
func WithFieldOwner(owner string) Option { return func(o *options) { o.fieldOwner = owner } }

// WithWorkers is how many resources are selected and rendered at once (one
// resource is never processed by two workers). Defaults to 2.
func WithWorkers(n int) Option { return func(o *options) { o.workers = n } }

// WithLeaderElection says whether the registry runs only on the elected
// leader. Defaults to true.
func WithLeaderElection(on bool) Option { return func(o *options) { o.leaderElection = on } }

// WithRateLimiter is the retry back-off of failed resources. Defaults to
// workqueue.DefaultTypedControllerRateLimiter (5 ms doubling to 1000 s,
// and 10 qps overall).
func WithRateLimiter(rl workqueue.TypedRateLimiter[Ref]) Option {
	return func(o *options) { o.rateLimiter = rl }
}

// WithLogger is the logger. Defaults to controller-runtime's
// log.Log.WithName("configurator").
func WithLogger(l logr.Logger) Option { return func(o *options) { o.log = l } }

// WithIndex shares idx (for example with a reconciler that calls
// idx.Track itself); the registry only queues dependents of its registered
// kinds. A given resource must be tracked by one party only: each run's
// Done drops the edges the other recorded. Defaults to a new Index.
func WithIndex(idx *Index) Option { return func(o *options) { o.index = idx } }

// Registry watches kinds, runs their Select and Render, and writes what
// changed. It is a manager.Runnable: add it to a manager (SetupWithManager)
// or call Start after the cache has started. Watch and Register must be
// called before Start; a Registry runs once.
type Registry struct {
	client client.Client
	cache  Cache
	opts   options
	index  *Index
	log    logr.Logger

	kinds   map[schema.GroupVersionKind]*Kind
	watches map[schema.GroupVersionKind]labels.Selector
	started atomic.Bool

	informMu sync.Mutex
	informed map[schema.GroupVersionKind]bool

	recMu   sync.RWMutex
	records map[Ref]*Record
	echoes  map[Ref]echo

	queue workqueue.TypedRateLimitingInterface[Ref]
	stats counters
}

var _ manager.Runnable = (*Registry)(nil)
var _ manager.LeaderElectionRunnable = (*Registry)(nil)

// New returns a Registry that writes through c and reads and watches
// through ca. c's scheme converts typed declared resources.
func New(c client.Client, ca Cache, opts ...Option) *Registry {
	o := options{name: "configurator", fieldOwner: "armature-configurator", workers: 2, leaderElection: true}
	for _, opt := range opts {
		opt(&o)
	}
	if o.rateLimiter == nil {
		o.rateLimiter = workqueue.DefaultTypedControllerRateLimiter[Ref]()
	}
	if o.log.GetSink() == nil {
		o.log = logf.Log.WithName(o.name)
	}
	if o.index == nil {
		o.index = NewIndex()
	}
	if o.workers < 1 {
		o.workers = 1
	}
	return &Registry{
		client:   c,
		cache:    ca,
		opts:     o,
		index:    o.index,
		log:      o.log,
		kinds:    map[schema.GroupVersionKind]*Kind{},
		watches:  map[schema.GroupVersionKind]labels.Selector{},
		informed: map[schema.GroupVersionKind]bool{},
		records:  map[Ref]*Record{},
		echoes:   map[Ref]echo{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(o.rateLimiter,
			workqueue.TypedRateLimitingQueueConfig[Ref]{Name: o.name}),
	}
}

// SetupWithManager returns a Registry on mgr's client and cache, added to
// mgr.
func SetupWithManager(mgr manager.Manager, opts ...Option) (*Registry, error) {
	r := New(mgr.GetClient(), mgr.GetCache(), opts...)
	if err := mgr.Add(r); err != nil {
		return nil, fmt.Errorf("add configurator to manager: %w", err)
	}
	return r, nil
}

var errStarted = errors.New("configurator: Watch and Register must be called before Start")

// Watch starts an informer for gvk at Start. For a registered kind, only
// resources matching selector (nil: all) are selected and rendered; a
// resource that stops matching is forgotten (its declared resources stay).
// For a kind that is only read through Tracker.Of, Watch just starts the
// informer up front; without it the informer starts at the first read.
func (r *Registry) Watch(gvk schema.GroupVersionKind, selector labels.Selector) error {
	if r.started.Load() {
		return errStarted
	}
	if selector == nil {
		selector = labels.Everything()
	}
	r.watches[gvk] = selector
	return nil
}

// Register adds a kind. A kind that was not watched is watched with no
// selector.
func (r *Registry) Register(k Kind) error {
	if r.started.Load() {
		return errStarted
	}
	if k.GVK.Kind == "" || k.GVK.Version == "" || k.Select == nil || k.Render == nil {
		return fmt.Errorf("configurator: kind %q needs GVK, Select and Render", k.GVK)
	}
	if _, dup := r.kinds[k.GVK]; dup {
		return fmt.Errorf("configurator: kind %s registered twice", kindKey(k.GVK))
	}
	r.kinds[k.GVK] = &k
	if _, ok := r.watches[k.GVK]; !ok {
		r.watches[k.GVK] = labels.Everything()
	}
	return nil
}

// Index is the registry's dependency index.
func (r *Registry) Index() *Index { return r.index }

// NeedLeaderElection implements manager.LeaderElectionRunnable.
func (r *Registry) NeedLeaderElection() bool { return r.opts.leaderElection }

// Start watches the kinds, then selects and renders until ctx is done.
func (r *Registry) Start(ctx context.Context) error {
	if err := r.install(ctx); err != nil {
		return err
	}
	var wg sync.WaitGroup
	for range r.opts.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r.processNext(ctx) {
			}
		}()
	}
	<-ctx.Done()
	r.queue.ShutDown()
	wg.Wait()
	return nil
}

// install starts the informers of the watched kinds with their handlers.
func (r *Registry) install(ctx context.Context) error {
	r.started.Store(true)
	for gvk := range r.watches {
		if err := r.inform(ctx, gvk); err != nil {
			return err
		}
	}
	return nil
}

// inform makes sure gvk's informer runs with the registry's handler; it
// blocks until the informer has synced.
func (r *Registry) inform(ctx context.Context, gvk schema.GroupVersionKind) error {
	r.informMu.Lock()
	defer r.informMu.Unlock()
	if r.informed[gvk] {
		return nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	inf, err := r.cache.GetInformer(ctx, obj)
	if err != nil {
		return fmt.Errorf("informer for %s: %w", kindKey(gvk), err)
	}
	if _, err := inf.AddEventHandler(r.handler(gvk)); err != nil {
		return fmt.Errorf("event handler for %s: %w", kindKey(gvk), err)
	}
	r.informed[gvk] = true
	return nil
}

// processNext runs one queued resource; false once the queue shut down.
func (r *Registry) processNext(ctx context.Context) bool {
	key, shutdown := r.queue.Get()
	if shutdown {
		return false
	}
	defer r.queue.Done(key)
	if err := r.process(ctx, key); err != nil {
		r.stats.errors.Add(1)
		if isTerminal(err) {
			r.log.Error(err, "select/render failed; waiting for a change", "resource", key.String())
			r.queue.Forget(key)
			return true
		}
		r.log.V(1).Info("select/render failed; retrying", "resource", key.String(), "error", err.Error())
		r.queue.AddRateLimited(key)
		return true
	}
	r.queue.Forget(key)
	return true
}
