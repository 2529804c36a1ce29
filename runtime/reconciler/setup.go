package reconciler

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/credentials"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// ownerIndex is the field index of spec.owner.name.
const ownerIndex = "spec.owner.name"

// SetupAll registers one reconciler per kind with the manager. The
// manager's client must read unstructured objects from its cache
// (ctrl.Options.Client.Cache.Unstructured = true): owners are looked up
// through an index there.
// Descriptors whose owner is another generated kind get a watch on it, so
// an owner turning Ready requeues exactly its children; an extension kind
// (its owner can be any resource, named by spec.owner group, kind and
// name) gets a watch on every kind registered here.
func SetupAll(mgr ctrl.Manager, armClient arm.Client, descs []*descriptor.Descriptor, cfg Config, opts ...SetupOption) error {
	var o setupOptions
	for _, opt := range opts {
		opt(&o)
	}
	providers := &registrations{}
	// A kind served in several versions gets one controller, on its storage
	// version; the other versions' reconcilers are reached through it.
	storage := map[schema.GroupKind]*descriptor.Descriptor{}
	for _, d := range descs {
		gk := schema.GroupKind{Group: d.Group, Kind: d.Kind}
		if cur, ok := storage[gk]; !ok || (d.IsStorage() && !cur.IsStorage()) {
			storage[gk] = d
		}
	}
	kinds := map[schema.GroupKind]string{}
	var referring []schema.GroupVersionKind
	for gk, d := range storage {
		kinds[gk] = d.Version
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
		r.Credentials, r.providers, r.kinds, r.Secrets = o.credentials, providers, kinds, o.secrets
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
	tracker := &sourceTracker{cache: mgr.GetCache()}
	for _, d := range descs {
		if r, ok := main[schema.GroupKind{Group: d.Group, Kind: d.Kind}]; ok && r.Desc == d {
			r.tracker, r.sources = tracker, make(chan event.GenericEvent, 64)
			tracker.kinds = append(tracker.kinds, d.GroupVersionKind())
			tracker.readers = append(tracker.readers, r)
		}
	}
	if err := mgr.Add(tracker); err != nil {
		return err
	}
	for _, d := range descs {
		r, ok := main[schema.GroupKind{Group: d.Group, Kind: d.Kind}]
		if !ok || r.Desc != d {
			continue
		}
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("%s: %w", d.GroupVersionKind(), err)
		}
	}
	return nil
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

// SetupWithManager registers the reconciler's controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(r.gvk())
	name := strings.ToLower(r.Desc.Kind + "." + r.Desc.Group)
	b := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(obj, builderPredicates()).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Config.WorkersPerKind})
	if r.Desc.OwnerKind != "" && r.OwnerVersion != "" {
		if err := mgr.GetFieldIndexer().IndexField(context.Background(), obj, ownerIndex, func(o client.Object) []string {
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
		owner := &unstructured.Unstructured{}
		owner.SetGroupVersionKind(r.ownerGVK())
		b = b.Watches(owner, handler.EnqueueRequestsFromMapFunc(r.children), builderOwnerPredicates())
	}
	if r.Desc.Scope == descriptor.ScopeExtension {
		// The owner can be any kind: every registered kind is watched
		// (the manager shares one informer per kind among controllers).
		if err := r.watchAnyOwner(context.Background(), mgr.GetFieldIndexer(), obj, func(owner client.Object, h handler.EventHandler) {
			b = b.Watches(owner, h, builderOwnerPredicates())
		}); err != nil {
			return err
		}
	}
	if err := r.watchTargets(context.Background(), mgr.GetFieldIndexer(), obj, func(target client.Object, h handler.EventHandler) {
		b = b.Watches(target, h, builderOwnerPredicates())
	}); err != nil {
		return err
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), obj, claimIndex, r.claimOf); err != nil {
		return err
	}
	if r.tracker != nil {
		if err := mgr.GetFieldIndexer().IndexField(context.Background(), obj, valuesIndex, r.tracker.index); err != nil {
			return err
		}
		b = b.WatchesRawSource(source.Channel(r.sources, &handler.EnqueueRequestForObject{}))
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), obj, secretIndex, func(o client.Object) []string {
		if u, ok := o.(*unstructured.Unstructured); ok {
			return secretRefs(u)
		}
		return nil
	}); err != nil {
		return err
	}
	// Referenced and credential Secrets, by their metadata only.
	b = b.WatchesMetadata(&corev1.Secret{}, r.secretHandler(), builder.WithPredicates(secretChanged()))
	r.claimKind = r.gvk()
	for _, v := range r.versions {
		v.claimKind = r.gvk()
	}
	if r.hasLists() {
		o := newObserver(r)
		if err := mgr.Add(o); err != nil {
			return err
		}
		b = b.WatchesRawSource(source.Channel(o.events, &handler.EnqueueRequestForObject{}, source.WithBufferSize[client.Object, reconcile.Request](observerBuffer)))
	}
	return b.Complete(r)
}

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
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := r.slimReader().List(ctx, list, client.InNamespace(ns), client.MatchingFields{index: value}, client.UnsafeDisableDeepCopy); err != nil {
		log.FromContext(ctx).Error(err, "list by index", "index", index, "value", value, "kind", gvk.Kind)
		return nil
	}
	return list.Items
}

// builderPredicates: a reconcile runs on create, delete, a spec change
// (generation), a deletion starting, or a change of the policy, sync
// period or refresh annotations — not on the reconciler's own status and annotation
// writes. Resyncs come from RequeueAfter.
func builderPredicates() builder.Predicates {
	return builder.WithPredicates(predicate.Funcs{
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
	})
}

// builderOwnerPredicates: children care about an owner's Ready condition
// and ARM id.
func builderOwnerPredicates() builder.Predicates {
	return builder.WithPredicates(predicate.Funcs{
		// A new owner matters to its children only when it is already Ready
		// (an informer's initial list); the children's own create events
		// cover the rest.
		CreateFunc: func(e event.CreateEvent) bool {
			u, ok := e.Object.(*unstructured.Unstructured)
			return !ok || ready(u)
		},
		DeleteFunc: func(event.DeleteEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool { return ReadinessChanged(e.ObjectOld, e.ObjectNew) },
	})
}
