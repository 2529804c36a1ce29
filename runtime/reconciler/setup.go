package reconciler

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/credentials"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// ownerIndex is the field index of spec.owner.name.
const ownerIndex = "spec.owner.name"

// SetupAll registers one reconciler per kind with the manager and serves
// every kind once the manager starts: SetupServing, for callers that
// install every CRD first. The manager's client must read unstructured
// objects from its cache (ctrl.Options.Client.Cache.Unstructured = true):
// owners are looked up through an index there.
func SetupAll(mgr ctrl.Manager, armClient arm.Client, descs []*descriptor.Descriptor, cfg Config, opts ...SetupOption) error {
	s, err := SetupServing(mgr, armClient, descs, cfg, opts...)
	if err != nil {
		return err
	}
	var all []schema.GroupKind
	for _, gvk := range s.Kinds() {
		all = append(all, gvk.GroupKind())
	}
	return mgr.Add(serveAll{s: s, kinds: all})
}

// SetupServing builds one reconciler per kind of descs and returns the
// Serving that starts their controllers as the kinds are served (a kind
// served in several versions gets one controller, on its storage version;
// the other versions' reconcilers are reached through it). Descriptors
// whose owner is another generated kind follow it through the fan-out
// (fanout.go), so an owner turning Ready requeues exactly its children;
// an extension kind (its owner can be any resource, named by spec.owner
// group, kind and name) follows every served kind.
func SetupServing(mgr ctrl.Manager, armClient arm.Client, descs []*descriptor.Descriptor, cfg Config, opts ...SetupOption) (*Serving, error) {
	var o setupOptions
	for _, opt := range opts {
		opt(&o)
	}
	providers := &registrations{}
	storage := map[schema.GroupKind]*descriptor.Descriptor{}
	for _, d := range descs {
		gk := schema.GroupKind{Group: d.Group, Kind: d.Kind}
		if cur, ok := storage[gk]; !ok || (d.IsStorage() && !cur.IsStorage()) {
			storage[gk] = d
		}
	}
	served := newKindSet(nil)
	var referring []schema.GroupVersionKind
	for _, d := range storage {
		if len(d.References) > 0 {
			referring = append(referring, d.GroupVersionKind())
		}
	}
	slices.SortFunc(referring, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	children := map[schema.GroupKind][]schema.GroupVersionKind{}
	for _, d := range storage {
		if d.OwnerKind != "" && storage[schema.GroupKind{Group: d.OwnerGroup, Kind: d.OwnerKind}] != nil {
			owner := schema.GroupKind{Group: d.OwnerGroup, Kind: d.OwnerKind}
			children[owner] = append(children[owner], d.GroupVersionKind())
		}
	}
	var extensions []schema.GroupVersionKind // kinds any kind may own
	for _, d := range storage {
		if d.Scope == descriptor.ScopeExtension {
			extensions = append(extensions, d.GroupVersionKind())
		}
	}
	slices.SortFunc(extensions, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	for _, c := range children {
		slices.SortFunc(c, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	}
	rec := mgr.GetEventRecorderFor("armature")
	if o.secrets == nil {
		o.secrets = NewSecretReader(mgr.GetCache(), mgr.GetAPIReader())
	}
	make1 := func(d *descriptor.Descriptor) *Reconciler {
		owner := storage[schema.GroupKind{Group: d.OwnerGroup, Kind: d.OwnerKind}]
		ownerVersion := ""
		if owner != nil {
			ownerVersion = owner.Version
		}
		r := New(CacheReader(mgr.GetClient()), armClient, d, ownerVersion, rec, cfg)
		r.APIReader = mgr.GetAPIReader()
		r.Credentials, r.providers, r.kinds, r.Secrets = o.credentials, providers, served, o.secrets
		r.referring = referring
		r.childKinds = children[schema.GroupKind{Group: d.Group, Kind: d.Kind}]
		r.extensionKinds = extensions
		r.Hooks = o.hooks[d.GroupVersionKind()]
		return r
	}
	main := map[schema.GroupKind]*Reconciler{}
	for _, d := range descs {
		gk := schema.GroupKind{Group: d.Group, Kind: d.Kind}
		if storage[gk] == d {
			main[gk] = make1(d)
		}
	}
	for _, d := range descs {
		gk := schema.GroupKind{Group: d.Group, Kind: d.Kind}
		if m := main[gk]; storage[gk] != d {
			if m.versions == nil {
				m.versions = map[string]*Reconciler{}
			}
			v := make1(d)
			v.mem = m.mem // one memory whichever version reconciles
			m.versions[d.Version] = v
		}
	}
	tracker := &sourceTracker{served: served}
	fan := newFanout(mgr.GetCache(), served, tracker)
	tracker.enqueue = fan.enqueue
	for _, r := range main {
		r.tracker = tracker
		tracker.readers = append(tracker.readers, r)
	}
	slices.SortFunc(tracker.readers, func(a, b *Reconciler) int { return strings.Compare(a.gvk().String(), b.gvk().String()) })
	for _, r := range tracker.readers {
		fan.subscribe(r)
	}
	if err := mgr.Add(fan); err != nil {
		return nil, err
	}
	s := &Serving{mgr: mgr, main: main, served: served, fan: fan,
		ctrls: map[schema.GroupKind]controller.Controller{}, forOn: map[schema.GroupKind]bool{},
		failed: make(chan error, 1)}
	if err := mgr.Add(s); err != nil {
		return nil, err
	}
	return s, nil
}

// SetupOption adds to SetupAll what its arguments do not say.
type SetupOption func(*setupOptions)

type setupOptions struct {
	credentials *credentials.Credentials
	secrets     client.Reader
	hooks       map[schema.GroupVersionKind]Hooks
}

// WithSecrets makes every reconciler read the Secrets specs reference with
// s (the SecretReader Credentials reads with, so they share its data).
// Without it, SetupAll makes a SecretReader over the manager's cache
// (metadata) and API reader.
func WithSecrets(s client.Reader) SetupOption {
	return func(o *setupOptions) { o.secrets = s }
}

// WithCredentials makes every reconciler pick each object's credential
// (and subscription) with c: a credential Secret in the object's namespace,
// else c's default. Without it, every object uses the arm.Client SetupAll
// is given and Config.SubscriptionID.
func WithCredentials(c *credentials.Credentials) SetupOption {
	return func(o *setupOptions) { o.credentials = c }
}

// index adds the kind's field indexes to its informer: owner (a child
// kind), any owner (an extension kind), reference targets, claimed ARM id,
// valuesFrom sources and referenced Secrets.
func (r *Reconciler) index(ctx context.Context, indexer client.FieldIndexer, obj client.Object) error {
	if r.Desc.OwnerKind != "" && r.OwnerVersion != "" {
		if err := indexer.IndexField(ctx, obj, ownerIndex, func(o client.Object) []string {
			u, ok := o.(*unstructured.Unstructured)
			if !ok {
				return nil
			}
			if _, _, n := specOwner(u); n != "" {
				return []string{n}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if r.isExtension() {
		if err := r.indexAnyOwner(ctx, indexer, obj); err != nil {
			return err
		}
	}
	if err := r.indexTargets(ctx, indexer, obj); err != nil {
		return err
	}
	if err := indexer.IndexField(ctx, obj, claimIndex, r.claimOf); err != nil {
		return err
	}
	if r.tracker != nil {
		if err := indexer.IndexField(ctx, obj, valuesIndex, r.tracker.index); err != nil {
			return err
		}
	}
	return indexer.IndexField(ctx, obj, secretIndex, func(o client.Object) []string {
		if u, ok := o.(*unstructured.Unstructured); ok {
			return secretRefs(u)
		}
		return nil
	})
}

// isExtension says whether the kind's owner may be any resource.
func (r *Reconciler) isExtension() bool { return r.Desc.Scope == descriptor.ScopeExtension }

// children lists the custom resources an owner owns.
func (r *Reconciler) children(ctx context.Context, owner client.Object) []reconcile.Request {
	return r.indexed(ctx, owner.GetNamespace(), ownerIndex, owner.GetName())
}

// indexed returns a request for each object of the kind in namespace ns
// whose field index has value.
func (r *Reconciler) indexed(ctx context.Context, ns, index, value string) []reconcile.Request {
	items := r.listIndexed(ctx, r.gvk(), ns, index, value)
	out := make([]reconcile.Request, 0, len(items))
	for _, c := range items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&c)})
	}
	return out
}

// listIndexed lists the cached objects of gvk in namespace ns whose field
// index has value, as the cache holds them (slim, not copied: only read
// names, metadata and the slim members). An error is logged and gives none.
func (r *Reconciler) listIndexed(ctx context.Context, gvk schema.GroupVersionKind, ns, index, value string) []unstructured.Unstructured {
	if r.kinds != nil && !r.kinds.has(gvk.GroupKind()) {
		return nil // not served (its CRD is not installed): nothing indexed
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := r.slimReader().List(ctx, list, client.InNamespace(ns), client.MatchingFields{index: value}, client.UnsafeDisableDeepCopy); err != nil {
		log.FromContext(ctx).Error(err, "list by index", "index", index, "value", value, "kind", gvk.Kind)
		return nil
	}
	return list.Items
}

// reconcilePredicate: a reconcile runs on create, delete, a spec change
// (generation), a deletion starting, or a change of the policy, sync
// period or refresh annotations — not on the reconciler's own status and annotation
// writes. Resyncs come from RequeueAfter.
var reconcilePredicate = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		if e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
			return true
		}
		if e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero() {
			return true
		}
		oa, na := e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations()
		return oa[core.AnnotationPolicy] != na[core.AnnotationPolicy] || oa[core.AnnotationSyncPeriod] != na[core.AnnotationSyncPeriod] ||
			oa[core.AnnotationRefresh] != na[core.AnnotationRefresh]
	},
}
