package reconciler

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
)

// A create's long-running operation is followed from memory: the claim
// written before the PUT carries the create's intent (claim.go), which
// says enough to survive a restart without the resume token, so the token
// costs no apiserver write. This process polls the operation with the
// token it keeps (pending); a process that finds an intent not done and no
// operation in memory (after a restart, or another leader's) reads the
// resource instead of sending the PUT again: there, the create was
// accepted and observe follows its provisioning state; absent, the PUT
// never took and is sent.

// pendingOf returns the create operation this process follows for the
// object when it completes the intent on the object, which status does
// not record as done; else nil (and a stale one is forgotten).
func (r *Reconciler) pendingOf(st *state) *operation {
	op := r.mem.followed(st.obj.GetUID())
	if op == nil {
		return nil
	}
	intent := st.operation()
	if intent == nil || intent.polled() || opHash(intent) != op.completes || st.opDone(intent) {
		r.mem.follow(st.obj.GetUID(), nil)
		return nil
	}
	return op
}

// follow keeps the operation a create started (its intent on the object)
// and requeues for its poll: no apiserver write.
func (r *Reconciler) follow(st *state, intent *operation, res *arm.Result) reconcile.Result {
	op := *intent
	op.Token, op.completes = res.Token, opHash(intent)
	r.mem.follow(st.obj.GetUID(), &op)
	inflight.Inc()
	return reconcile.Result{RequeueAfter: r.pollAfter(res)}
}

// recoverIntent handles a create intent on the object that is not done and
// that no operation in memory follows: the resource is read. There, the
// create was accepted (by this process before a restart, or by another):
// the intent counts as done and the resource is observed (its
// provisioning state decides Ready). Absent, done is false and the create
// goes on (the PUT is sent).
func (r *Reconciler) recoverIntent(ctx context.Context, st *state, id string, intent *operation) (done bool, res reconcile.Result, err error) {
	got, err := r.armCall(ctx, st, http.MethodGet, id, nil)
	if arm.IsNotFound(err) {
		return false, res, nil
	}
	if err != nil {
		res, err = r.fail(ctx, st, step(stepRead+" "+id, err))
		return true, res, err
	}
	r.event(st, "Normal", verbReason(intent.Verb, true), fmt.Sprintf("%s %s (accepted before a restart; its end is read from the resource)", intent.Verb, id))
	st.lastOp = opHash(intent)
	res, err = r.observeWith(ctx, st, id, nil, got)
	return true, res, err
}

// refusedIntent drops the create intent on the object when ARM answered the
// PUT with a refusal (a 4xx: the create was not accepted), so that no later
// reconcile takes a resource it then finds — one being deleted, say — for
// this create's. An answer that leaves the outcome open (5xx, no answer)
// keeps it: the resource, if there, is this create's.
func (r *Reconciler) refusedIntent(ctx context.Context, st *state, err error) error {
	var ae *arm.Error
	if !errors.As(err, &ae) || ae.Status >= 500 {
		return nil
	}
	intent := st.operation()
	if intent == nil || intent.polled() || st.opDone(intent) {
		return nil
	}
	base := st.obj.DeepCopy()
	removeAnnotation(st.obj, core.AnnotationOperation)
	return r.patchMeta(ctx, st, base)
}
