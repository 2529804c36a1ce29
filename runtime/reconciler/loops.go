package reconciler

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
)

// Loops are bounded and visible: an operation lost by ARM is followed by
// a GET, not a new write; the writes of one generation that do not bring
// the object to Ready are counted, and past Config.MaxWritesPerGeneration
// nothing more is sent until the object changes; a status write gets a
// context of its own when the reconcile's has ended; an owner cycle is
// named.

// overBudget reports (and shows) an object whose generation has made
// Config.MaxWritesPerGeneration writes without settling.
func (r *Reconciler) overBudget(ctx context.Context, st *state, verb, id string) (bool, reconcile.Result, error) {
	n := r.mem.spent(st.obj.GetUID(), st.obj.GetGeneration())
	if n < r.Config.MaxWritesPerGeneration {
		return false, reconcile.Result{}, nil
	}
	msg := fmt.Sprintf("%d writes to %s in generation %d did not bring it to Ready; the next one (%s) is not sent until the spec changes. Look at the events and at the resource in Azure", n, id, st.obj.GetGeneration(), verb)
	r.eventOnce(st, core.ReasonWriteLoop, msg)
	st.userMustAct(core.ReasonWriteLoop, msg)
	return true, reconcile.Result{}, step(stepStatus, r.writeStatus(ctx, st))
}

// lostOperation handles a poll answered 404 (ARM forgot the operation, or
// its URL expired): the resource is read; there, the operation counts as
// finished and its body as applied; absent, the write failed, and it is
// retried with a backoff that keeps growing (never at once, never on the
// word of a new PUT's acceptance alone).
func (r *Reconciler) lostOperation(ctx context.Context, st *state, id string, op *operation, perr error) (reconcile.Result, error) {
	res, err := r.armCall(ctx, st, http.MethodGet, id, nil)
	if err != nil && !arm.IsNotFound(err) {
		return r.fail(ctx, st, step(stepRead+" "+id, err))
	}
	inflight.Dec()
	if err == nil {
		r.event(st, corev1.EventTypeWarning, core.EventOperationLost, fmt.Sprintf("ARM no longer knows the %s operation (%v); %s exists: the write counts as done", op.Verb, perr, id))
		if rerr := r.recordApplied(ctx, st, id, op.Applied, nil); rerr != nil {
			return reconcile.Result{}, step(stepRecord, rerr)
		}
		return r.observeWith(ctx, st, id, nil, res)
	}
	base := st.obj.DeepCopy()
	removeAnnotation(st.obj, core.AnnotationOperation)
	if rerr := r.patchMeta(ctx, st, base); rerr != nil {
		return reconcile.Result{}, step(stepRecord, rerr)
	}
	msg := fmt.Sprintf("ARM no longer knows the %s operation on %s and the resource is not there: the write is sent again after a backoff", op.Verb, id)
	return r.wait(ctx, st, perr, arm.ClassRetry, core.ReasonOperationLost, msg, false, 0)
}

// statusContext is ctx, or — when the reconcile's deadline has passed — a
// short context of its own, so that the status says what happened.
func statusContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return ctx, func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
}

// maxOwnerChain bounds the walk of ownerCycle.
const maxOwnerChain = 16

// ownerCycle returns the chain of spec.owner links that comes back to the
// object ("" when there is none), following the owners named by group,
// kind and name (extension kinds: the only ones whose owner can be any
// kind, so the only ones that can close a cycle).
func (r *Reconciler) ownerCycle(ctx context.Context, st *state) string {
	self := schema.GroupKind{Group: r.Desc.Group, Kind: r.Desc.Kind}
	chain := []string{r.Desc.Kind + "/" + st.obj.GetName()}
	cur := st.obj
	for range maxOwnerChain {
		g, k, n := specOwner(cur)
		if k == "" || n == "" {
			return ""
		}
		chain = append(chain, k+"/"+n)
		if (schema.GroupKind{Group: g, Kind: k}) == self && n == st.obj.GetName() {
			return strings.Join(chain, " → ")
		}
		v, ok := r.kinds[schema.GroupKind{Group: g, Kind: k}]
		if !ok {
			return ""
		}
		next := &unstructured.Unstructured{}
		next.SetGroupVersionKind(schema.GroupVersionKind{Group: g, Version: v, Kind: k})
		if err := r.slimReader().Get(ctx, client.ObjectKey{Namespace: st.obj.GetNamespace(), Name: n}, next); err != nil {
			return ""
		}
		cur = next
	}
	return ""
}

// settledNow reports a reconcile that ended Ready=True.
func (st *state) settledNow() bool {
	return st.cond != nil && st.cond.Type == core.ConditionReady && st.cond.Status == metav1.ConditionTrue
}
