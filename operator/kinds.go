package operator

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/webhook"
)

// crdGVK is the kind of CustomResourceDefinitions, watched by their
// metadata only (a CRD is up to 256 KiB; its name is all that is needed).
var crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// crdName is the name of the CRD that serves d: its resource (plural) and
// group.
func crdName(d *descriptor.Descriptor) string { return webhook.Resource(d) + "." + d.Group }

// kindsOfCRDs serves a selected kind while its CRD is installed and serves
// the kind's storage version, and stops serving it when the CRD is gone:
// a CRD installed after the start is served without a restart. While a
// CRD is being deleted its kind stays served, so that the finalizers of
// its objects run.
type kindsOfCRDs struct {
	serving *reconciler.Serving
	reader  client.Reader
	mapper  meta.RESTMapper
	// byName: CRD name → the kind it serves (the version reconciled).
	byName map[string]schema.GroupVersionKind
	// patience is how long after a CRD's creation a missing mapping is
	// retried quickly (the CRD is not established yet); after it, slowly.
	patience time.Duration
}

// setupKinds makes the operator serve the selected kinds whose CRD is
// installed, as their CRDs come and go.
func setupKinds(mgr ctrl.Manager, serving *reconciler.Serving, selected []*descriptor.Descriptor) error {
	k := &kindsOfCRDs{serving: serving, reader: mgr.GetCache(), mapper: mgr.GetRESTMapper(), byName: map[string]schema.GroupVersionKind{}, patience: time.Minute}
	storage := map[schema.GroupKind]schema.GroupVersionKind{}
	for _, gvk := range serving.Kinds() {
		storage[gvk.GroupKind()] = gvk
	}
	for _, d := range selected {
		if gvk, ok := storage[schema.GroupKind{Group: d.Group, Kind: d.Kind}]; ok {
			k.byName[crdName(d)] = gvk
		}
	}
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdGVK)
	return ctrl.NewControllerManagedBy(mgr).
		Named("kinds").
		For(crd, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			_, ok := k.byName[o.GetName()]
			return ok
		}))).
		// Kinds are served together (each waits for its informer's first
		// list); one CRD is never reconciled twice at once.
		WithOptions(controller.Options{MaxConcurrentReconciles: reconciler.ServeConcurrency}).
		Complete(k)
}

// Reconcile serves or stops serving the kind of one CRD.
func (k *kindsOfCRDs) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	gvk, ok := k.byName[req.Name]
	if !ok {
		return reconcile.Result{}, nil
	}
	gk := gvk.GroupKind()
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdGVK)
	if err := k.reader.Get(ctx, client.ObjectKey{Name: req.Name}, crd); err != nil {
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		forget(k.mapper, gk)
		return reconcile.Result{}, k.serving.Unserve(ctx, gk)
	}
	if k.serving.IsServed(gk) {
		return reconcile.Result{}, nil
	}
	if !crd.GetDeletionTimestamp().IsZero() {
		return reconcile.Result{}, nil // going: not served again
	}
	if _, err := k.mapper.RESTMapping(gk, gvk.Version); err != nil {
		// Not established yet, or the CRD does not serve the version this
		// operator reconciles (an older CRD): ask again.
		if time.Since(crd.GetCreationTimestamp().Time) < k.patience {
			return reconcile.Result{RequeueAfter: time.Second}, nil
		}
		log.FromContext(ctx).Info("CRD installed but its kind is not served at the version this operator reconciles: install the CRD of this build", "crd", req.Name, "version", gvk.Version)
		return reconcile.Result{RequeueAfter: time.Minute}, nil
	}
	return reconcile.Result{}, k.serving.Serve(ctx, gk)
}

// forget drops what m remembers of gk's mappings (a memoMapper's).
func forget(m meta.RESTMapper, gk schema.GroupKind) {
	if f, ok := m.(interface{ forget(schema.GroupKind) }); ok {
		f.forget(gk)
	}
}
