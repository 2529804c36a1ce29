package reconciler

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
)

// One object per resource, and no silent takeover: before the first
// create of an object the reconciler checks that no other object of the
// kind (in any namespace) claims the ARM id, and GETs it — an existing
// resource this object did not create is never written. The claim (the
// sealed AnnotationARMID) is recorded before the PUT, so an operator
// killed after an accepted PUT still knows the resource is the object's.

// claimIndex is the field index of the ARM id an object claims (lower
// case): its sealed AnnotationARMID, else its status.id.
const claimIndex = "armature.dev/claim"

// claimOf is the value of claimIndex for obj: what the reconciler would
// delete for it, or has observed.
func (r *Reconciler) claimOf(obj client.Object) []string {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	if id, _ := r.seal.armID(u); id != "" {
		return []string{strings.ToLower(id)}
	}
	if id := statusID(u); id != "" {
		return []string{strings.ToLower(id)}
	}
	return nil
}

// claimant returns "namespace/name" of another object of the kind that
// claims id; "" when none does (or the index is not set up: a reconciler
// built without a manager).
func (r *Reconciler) claimant(ctx context.Context, st *state, id string) (string, error) {
	if r.claimKind.Empty() {
		return "", nil
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(r.claimKind.GroupVersion().WithKind(r.claimKind.Kind + "List"))
	if err := r.slimReader().List(ctx, list, client.MatchingFields{claimIndex: strings.ToLower(id)}, client.UnsafeDisableDeepCopy); err != nil {
		return "", fmt.Errorf("list the objects that claim %s: %w", id, err)
	}
	for i := range list.Items {
		o := &list.Items[i]
		if o.GetUID() != st.obj.GetUID() {
			return o.GetNamespace() + "/" + o.GetName(), nil
		}
	}
	return "", nil
}

// claim runs before the first create of the resource id with the body
// applied (secrets hashed). done is true when the reconcile ends here (the
// condition is written). intent is the create recorded on the object with
// the claim (nil when the object claimed id before): a synchronous create
// then needs no metadata write of its own (its end goes to
// status.lastOperation).
func (r *Reconciler) claim(ctx context.Context, st *state, id, verb, applied string) (done bool, intent *operation, res reconcile.Result, err error) {
	if rec, _ := st.claimedID(); rec != "" && strings.EqualFold(rec, id) {
		return false, nil, res, nil // claimed before: the resource, if there, is this object's
	}
	if other, err := r.claimant(ctx, st, id); err != nil || other != "" {
		if err != nil {
			return true, nil, res, step(stepClaim, err)
		}
		res, err = r.claimRefused(ctx, st, core.ReasonClaimedByAnotherObject, fmt.Sprintf("%s %s manages %s: nothing is written for this object. Delete one of the two, or give this one another azureName", r.Desc.Kind, other, id))
		return true, nil, res, err
	}
	if r.Desc.Singleton == "" {
		// A singleton exists with its parent: there is nothing to take over.
		_, err := r.armCall(ctx, st, http.MethodGet, id, nil)
		switch {
		case err == nil:
			res, err = r.claimRefused(ctx, st, core.ReasonAzureResourceExists, fmt.Sprintf("%s exists in Azure and this object did not create it: nothing is written. To manage it with this object, set spec.resourceID: %s (adoption; the reconcile policy then applies to it, deletion included); or give the object another azureName", id, id))
			return true, nil, res, err
		case !arm.IsNotFound(err):
			res, err = r.fail(ctx, st, step(stepClaim, err))
			return true, nil, res, err
		}
	}
	base := st.obj.DeepCopy()
	r.seal.setARMID(st.obj, id)
	intent = &operation{Verb: verb, ID: id, Applied: applied, Started: time.Now().UTC().Format(time.RFC3339Nano), Create: true}
	setAnnotation(st.obj, core.AnnotationOperation, r.seal.sealOperation(st.obj.GetUID(), *intent))
	if err := r.patchMeta(ctx, st, base); err != nil {
		return true, nil, res, step(stepClaim, err)
	}
	return false, intent, res, nil
}

// claimRefused shows a refused claim: Ready=False, ActionRequired=True,
// one Warning event; the object is looked at again after the sync period
// (the other object or resource may go).
func (r *Reconciler) claimRefused(ctx context.Context, st *state, reason, message string) (reconcile.Result, error) {
	r.eventOnce(st, reason, message)
	st.userMustAct(reason, message)
	return reconcile.Result{RequeueAfter: r.syncPeriod(st)}, step(stepStatus, r.writeStatus(ctx, st))
}

// discardOperation drops an operation record the reconciler will not
// follow (forged, or polling somewhere other than ARM), with a Warning
// event; the next reconcile observes the resource by GET.
func (r *Reconciler) discardOperation(ctx context.Context, st *state, why string) (reconcile.Result, error) {
	r.event(st, corev1.EventTypeWarning, core.EventOperationDiscarded, "annotation "+core.AnnotationOperation+" discarded: "+why+"; the resource is read from Azure again")
	base := st.obj.DeepCopy()
	removeAnnotation(st.obj, core.AnnotationOperation)
	if err := r.patchMeta(ctx, st, base); err != nil {
		return reconcile.Result{}, step(stepRecord, err)
	}
	return reconcile.Result{Requeue: true}, nil
}
