package action

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// targetIndex indexes Actions by the kind and name of their target.
const targetIndex = "spec.target.kindName"

func targetKey(kind, name string) string { return strings.ToLower(kind) + "/" + name }

// SetupWithManager registers the Action controller for the generated kinds
// descs (those the operator runs): Actions may target them, and their
// custom resources are watched so that a target turning Ready starts the
// Actions waiting for it. The manager's scheme must know v1alpha1 and
// core/v1, and its client must read unstructured objects from the cache.
func SetupWithManager(mgr manager.Manager, armClient arm.Client, descs []*descriptor.Descriptor, opts ...Option) (*Reconciler, error) {
	r, err := New(mgr.GetClient(), armClient, NewRegistry(descs), append([]Option{WithRecorder(mgr.GetEventRecorderFor("armature-actions"))}, opts...)...)
	if err != nil {
		return nil, err
	}
	// The cache may hold objects in a form of its own: read them whole.
	if r.Objects.Reader != nil {
		r.Client = r.Objects.Reader(r.Client)
	}
	r.APIReader = mgr.GetAPIReader()
	r.cache = mgr.GetCache()
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &v1alpha1.Action{}, targetIndex, func(o client.Object) []string {
		a, ok := o.(*v1alpha1.Action)
		if !ok || a.Spec.Target.Kind == "" {
			return nil
		}
		return []string{targetKey(a.Spec.Target.Kind, a.Spec.Target.Name)}
	}); err != nil {
		return nil, err
	}
	b := ctrl.ControllerManagedBy(mgr).
		Named("action.actions.azure.armature.dev").
		For(&v1alpha1.Action{}, ctrl.WithPredicates(predicate.GenerationChangedPredicate{}))
	if r.targetsLater {
		c, err := b.Build(r)
		r.ctrl, r.watched = c, map[schema.GroupKind]bool{}
		return r, err
	}
	for _, d := range r.Registry.Descriptors() {
		gvk := d.GroupVersionKind()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		b = b.Watches(u, handler.EnqueueRequestsFromMapFunc(r.waiting), ctrl.WithPredicates(targetChanged(r.Objects.Changed)))
	}
	return r, b.Complete(r)
}

// WithTargetsLater makes SetupWithManager watch no target kind: the
// caller calls WatchTarget for each kind as it is served (and
// ForgetTarget when it goes), e.g. from reconciler.Serving's OnServe.
func WithTargetsLater() Option { return func(r *Reconciler) { r.targetsLater = true } }

// WatchTarget makes the Action controller watch the custom resources of
// gvk (a kind Actions may target), once: a target turning Ready starts the
// Actions waiting for it. Only with WithTargetsLater.
func (r *Reconciler) WatchTarget(_ context.Context, gvk schema.GroupVersionKind) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctrl == nil || r.watched[gvk.GroupKind()] {
		return nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := r.ctrl.Watch(source.Kind[client.Object](r.cache, u, handler.EnqueueRequestsFromMapFunc(r.waiting), targetChanged(r.Objects.Changed))); err != nil {
		return err
	}
	r.watched[gvk.GroupKind()] = true
	return nil
}

// ForgetTarget forgets the watch of gk (its informer was removed with the
// kind's CRD); WatchTarget adds it again.
func (r *Reconciler) ForgetTarget(gk schema.GroupKind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.watched, gk)
}

// waiting lists the Actions that target a custom resource.
func (r *Reconciler) waiting(ctx context.Context, o client.Object) []reconcile.Request {
	var list v1alpha1.ActionList
	kind := o.GetObjectKind().GroupVersionKind().Kind
	if err := r.Client.List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingFields{targetIndex: targetKey(kind, o.GetName())}); err != nil {
		log.FromContext(ctx).Error(err, "list Actions of a target", "kind", kind, "name", o.GetName())
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		if a := &list.Items[i]; !done(a) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(a)})
		}
	}
	return out
}

// targetChanged passes a target's creation and a change of its Ready
// condition or ARM id (changed; nil: every update): what a waiting Action
// waits for.
func targetChanged(changed func(oldObj, newObj client.Object) bool) predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return true },
		DeleteFunc: func(event.DeleteEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool { return changed == nil || changed(e.ObjectOld, e.ObjectNew) },
	}
}
