package reconciler

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// finalize deletes the Azure resource (unless detached) and drops the
// finalizer.
func (r *Reconciler) finalize(ctx context.Context, st *state) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(st.obj, Finalizer) {
		return reconcile.Result{}, nil
	}
	if !st.policy.Deletes() {
		r.event(st, corev1.EventTypeNormal, EventDetached, "the Azure resource is left in place (policy "+string(st.policy)+")")
		return r.removeFinalizer(ctx, st)
	}
	if !r.Desc.HasVerb(http.MethodDelete) {
		r.event(st, corev1.EventTypeNormal, EventNoDelete, r.Desc.ARMType+" has no DELETE in ARM: it goes with its parent")
		return r.removeFinalizer(ctx, st)
	}
	id := st.obj.GetAnnotations()[AnnotationARMID]
	if op := st.operation(); op != nil {
		if op.Verb == http.MethodDelete {
			return r.poll(ctx, st, id, op)
		}
		// A create or update in flight: delete anyway, ARM serialises.
	}
	if id == "" {
		if rid, _ := spec(st.obj)["resourceID"].(string); rid != "" {
			id = rid
		} else if sid, _, _ := unstructured.NestedString(st.obj.Object, "status", "id"); sid != "" {
			id = sid
		}
	}
	if id == "" {
		return r.removeFinalizer(ctx, st) // never created
	}
	res, err := r.armCall(ctx, st, http.MethodDelete, id, nil)
	if err != nil {
		return r.fail(ctx, st, step(stepDelete, err))
	}
	if !res.Done() {
		return r.startOperation(ctx, st, id, http.MethodDelete, false, res, "")
	}
	r.event(st, corev1.EventTypeNormal, EventDeleted, "DELETE "+id)
	return r.removeFinalizer(ctx, st)
}

func (r *Reconciler) removeFinalizer(ctx context.Context, st *state) (reconcile.Result, error) {
	base := st.obj.DeepCopy()
	controllerutil.RemoveFinalizer(st.obj, Finalizer)
	removeAnnotation(st.obj, AnnotationOperation)
	return reconcile.Result{}, step(stepRecord, client.IgnoreNotFound(r.Client.Patch(ctx, st.obj, client.MergeFrom(base))))
}
