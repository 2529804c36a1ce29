package reconciler

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
)

// apply sends to ARM what decide says (nothing when the spec is as last
// applied), then observes.
func (r *Reconciler) apply(ctx context.Context, st *state, id string) (reconcile.Result, error) {
	if st.policy == core.PolicySkip {
		return r.observe(ctx, st, id, nil)
	}
	desired, err := r.desired(ctx, st)
	if err != nil {
		return r.fail(ctx, st, err)
	}
	applied := mustJSON(hashSecretsWith(r.Desc, desired, r.seal.secretDigest))
	last, lastDigest := loadApplied(st.lastApplied())
	digestOnly := false
	if lastDigest != "" {
		// Too large to keep but as a digest: unchanged is known; a change
		// is measured against the live resource.
		if lastDigest == appliedDigest(applied) {
			last = applied
		} else {
			digestOnly = true
		}
	}
	ign := ignoredOf(st.obj)
	live, done, result, err := r.liveBefore(ctx, st, id, last, digestOnly, ign)
	if done {
		return result, err
	}
	w, err := decideWith(r.Desc, desired, last, live, r.seal.secretDigest, ign)
	if err == nil && w.NeedLive {
		res, gerr := r.armCall(ctx, st, http.MethodGet, id, nil)
		if gerr != nil {
			return r.fail(ctx, st, step(stepRead+" "+id, gerr))
		}
		w, err = decideWith(r.Desc, desired, last, res.Body, r.seal.secretDigest, ign)
	}
	if err != nil {
		return r.fail(ctx, st, step(stepDecide, err))
	}
	stored := storeApplied(applied)
	if w.Verb == "" {
		return r.inSync(ctx, st, id, last, applied, stored, desired)
	}
	payload := []byte(mustJSON(w.Body))
	if st.policy.OnlyPlans() {
		return r.plan(ctx, st, id, w, payload)
	}
	if stale, err := r.stale(ctx, st); err != nil || stale {
		return reconcile.Result{Requeue: stale}, step(stepStale, err)
	}
	st.write = &pendingWrite{last: last, applied: applied}
	// A digest, not the body: the body may hold secrets.
	write := sha256.Sum256(fmt.Appendf(nil, "%d %s %s %s", st.obj.GetGeneration(), w.Verb, id, payload))
	if prev := r.mem.refusal(st.obj.GetUID()); prev != nil && prev.write == write {
		// ARM refused this very write: it would refuse it again.
		return r.fail(ctx, st, prev.err)
	}
	if over, res, err := r.overBudget(ctx, st, w.Verb, id); over {
		return res, err
	}
	var intent *operation
	if w.Create {
		var done bool
		var res reconcile.Result
		if done, intent, res, err = r.claim(ctx, st, id, w.Verb, stored); done {
			return res, err
		}
	}
	res, err := r.armCall(ctx, st, w.Verb, id, payload)
	if err != nil {
		if cerr := r.refusedIntent(ctx, st, err); cerr != nil {
			return reconcile.Result{}, step(stepRecord, cerr)
		}
		result, ferr := r.fail(ctx, st, step(stepWrite(w.Verb, id), err))
		if st.refused {
			r.mem.refuse(st.obj.GetUID(), &refusal{write: write, err: step(stepWrite(w.Verb, id), err)})
		}
		return result, ferr
	}
	r.mem.refuse(st.obj.GetUID(), nil)
	r.mem.spend(st.obj.GetUID(), st.obj.GetGeneration())
	r.wroteNow(st)
	if !res.Done() {
		if intent != nil && intent.Applied == stored {
			// The intent on the object survives a restart: the token is
			// kept in memory, with no apiserver write (pending.go).
			return r.follow(st, intent, res), nil
		}
		return r.startOperation(ctx, st, id, w.Verb, w.Create, res, stored)
	}
	if intent != nil && intent.Applied == stored {
		// The create recorded before the PUT is done: status says so
		// (lastOperation), and its body counts as the last applied.
		st.lastOp = opHash(intent)
	} else if err := r.recordApplied(ctx, st, id, stored, nil); err != nil {
		return reconcile.Result{}, step(stepRecord, err)
	}
	r.event(st, corev1.EventTypeNormal, verbReason(w.Verb, w.Create), fmt.Sprintf("%s %s", w.Verb, id))
	st.wrote = true
	return r.observe(ctx, st, id, desired)
}

// inSync ends a reconcile that has nothing to write: the record is brought
// up to date when the spec changed only where nothing is sent (or was
// adopted in sync), then the resource is observed unless the drift
// observer watches it.
func (r *Reconciler) inSync(ctx context.Context, st *state, id, last, applied, stored string, desired map[string]any) (reconcile.Result, error) {
	if rec, _ := st.claimedID(); (last != applied || !strings.EqualFold(rec, id)) && !st.policy.OnlyPlans() {
		// Adopted in sync, or written before the ARM id was sealed (an
		// earlier operator version): record what the spec says and the
		// id derived from it, without a write to ARM.
		if err := r.recordApplied(ctx, st, id, stored, nil); err != nil {
			return reconcile.Result{}, step(stepRecord, err)
		}
	}
	if !st.forced && st.settled() && r.listed(id) {
		// Nothing to write and nothing new to show: the drift
		// observer's LIST watches it (no GET, no requeue).
		return reconcile.Result{}, nil
	}
	return r.observe(ctx, st, id, desired)
}

// liveBefore reads the live resource when the decision needs it before
// any write: an adoption (spec.resourceID), and a resource written before
// whose last-applied record was dropped (drift correction) that holds
// embedded children, values at ignored paths, or was recorded as a digest
// only. done is true when the reconcile ends here, with res and err.
func (r *Reconciler) liveBefore(ctx context.Context, st *state, id, last string, digestOnly bool, ign ignored) (live map[string]any, done bool, res reconcile.Result, err error) {
	if adopt, _ := spec(st.obj)["resourceID"].(string); last == "" && adopt != "" {
		// Adoption: the resource must exist; it is never created, and only
		// what differs from the spec is written.
		got, gerr := r.armCall(ctx, st, http.MethodGet, id, nil)
		if arm.IsNotFound(gerr) {
			st.userMustAct(core.ReasonAzureResourceNotFound, fmt.Sprintf("spec.resourceID %s does not exist; it is never created", adopt))
			return nil, true, reconcile.Result{RequeueAfter: r.Config.SyncPeriod}, step(stepStatus, r.writeStatus(ctx, st))
		}
		if gerr != nil {
			res, err = r.fail(ctx, st, step(stepAdopt, gerr))
			return nil, true, res, err
		}
		live = got.Body
		if live == nil {
			live = map[string]any{}
		}
	}
	if sid, _, _ := unstructured.NestedString(st.obj.Object, "status", "id"); live == nil && last == "" && sid != "" && (len(r.Desc.EmbeddedChildren) > 0 || digestOnly || len(ign) > 0) {
		// Written before, last-applied since dropped (drift correction):
		// the resource may hold children a whole PUT of the spec would
		// delete, or values at ignored paths a whole PUT would overwrite,
		// so the decision is made against the live body.
		got, gerr := r.armCall(ctx, st, http.MethodGet, id, nil)
		switch {
		case gerr == nil && got.Body != nil:
			live = got.Body
		case gerr != nil && !arm.IsNotFound(gerr):
			res, err = r.fail(ctx, st, step(stepRead+" "+id, gerr))
			return nil, true, res, err
		}
	}
	return live, false, reconcile.Result{}, nil
}

func verbReason(verb string, create bool) string {
	switch {
	case create:
		return core.EventCreated
	case verb == http.MethodPatch:
		return core.EventPatched
	}
	return core.EventUpdated
}

// plan writes what would be sent to the plan annotation and status.
func (r *Reconciler) plan(ctx context.Context, st *state, id string, w Write, payload []byte) (reconcile.Result, error) {
	action := "update"
	if w.Create {
		action = "create"
	}
	// Secret values are never shown: the plan is an annotation and status.
	plan := map[string]any{"action": action, "verb": w.Verb, "id": id, "body": redactSecrets(r.Desc, w.Body)}
	if len(w.Ignored) > 0 {
		plan["ignored"] = w.Ignored
	}
	p := mustJSON(plan)
	base := st.obj.DeepCopy()
	setAnnotation(st.obj, core.AnnotationPlan, p)
	if err := r.patchMeta(ctx, st, base); err != nil {
		return reconcile.Result{}, step(stepRecord, err)
	}
	st.setCondition(false, core.ReasonPlan, fmt.Sprintf("plan: %s (%s %s); nothing was sent", action, w.Verb, id))
	plan = nil
	_ = json.Unmarshal([]byte(p), &plan)
	st.plan = plan
	return reconcile.Result{RequeueAfter: r.syncPeriod(st)}, step(stepStatus, r.writeStatus(ctx, st))
}

// startOperation keeps the operation on the object and requeues.
// One Event says what was done when the operation ends (Created, Patched,
// Updated, Deleted), as for a synchronous write.
func (r *Reconciler) startOperation(ctx context.Context, st *state, id, verb string, create bool, res *arm.Result, applied string) (reconcile.Result, error) {
	base := st.obj.DeepCopy()
	op := operation{Verb: verb, ID: id, Token: res.Token, Applied: applied, Started: time.Now().UTC().Format(time.RFC3339), Create: create}
	setAnnotation(st.obj, core.AnnotationOperation, r.seal.sealOperation(st.obj.GetUID(), op))
	if verb != http.MethodDelete {
		r.seal.setARMID(st.obj, id)
	}
	if err := r.patchMeta(ctx, st, base); err != nil {
		return reconcile.Result{}, step(stepRecord, err)
	}
	inflight.Inc()
	return reconcile.Result{RequeueAfter: r.pollAfter(res)}, nil
}

func (r *Reconciler) pollAfter(res *arm.Result) time.Duration {
	if res != nil && res.RetryAfter > 0 {
		return res.RetryAfter
	}
	return r.Config.PollInterval
}

// poll advances the operation in flight once.
func (r *Reconciler) poll(ctx context.Context, st *state, id string, op *operation) (reconcile.Result, error) {
	res, err := st.arm.Client.Poll(ctx, op.Token)
	observeARM("POLL", err)
	if arm.IsForeignHost(err) {
		return r.discardOperation(ctx, st, err.Error())
	}
	if arm.IsNotFound(err) && op.Verb != http.MethodDelete {
		return r.lostOperation(ctx, st, id, op, err)
	}
	if err != nil {
		err = step(stepPoll+" ("+op.Verb+" "+id+")", err)
		if arm.IsRetryable(err) {
			return reconcile.Result{}, err
		}
		base := st.obj.DeepCopy()
		removeAnnotation(st.obj, core.AnnotationOperation)
		inflight.Dec()
		if perr := r.patchMeta(ctx, st, base); perr != nil {
			return reconcile.Result{}, step(stepRecord, perr)
		}
		if op.Verb == http.MethodDelete {
			return reconcile.Result{}, err
		}
		return r.fail(ctx, st, err)
	}
	if !res.Done() {
		// The stored token stays: it resumes polling at the same URL. (azcore
		// re-encodes the poller state on every poll; saving each would cost
		// an apiserver write per poll.)
		started, _ := time.Parse(time.RFC3339, op.Started)
		if time.Since(started) < slowOperation {
			return reconcile.Result{RequeueAfter: r.pollAfter(res)}, nil
		}
		st.setCondition(false, core.ReasonReconciling, fmt.Sprintf("%s %s in progress since %s", op.Verb, id, op.Started))
		return reconcile.Result{RequeueAfter: r.pollAfter(res)}, step(stepStatus, r.writeStatus(ctx, st))
	}
	inflight.Dec()
	if op.Verb == http.MethodDelete {
		r.event(st, corev1.EventTypeNormal, core.EventDeleted, "DELETE "+id)
		return r.removeFinalizer(ctx, st)
	}
	r.wroteNow(st)
	// The operation's end is recorded in status (lastOperation), written
	// with the rest of status: no metadata write. Its body counts as the
	// last-applied one until the next write replaces both annotations.
	st.lastOp = opHash(op)
	r.event(st, corev1.EventTypeNormal, verbReason(op.Verb, op.Create), fmt.Sprintf("%s %s", op.Verb, id))
	if res.Body != nil && res.Body["id"] == nil {
		res = nil // not the resource (an operation status body)
	}
	st.wrote = true
	return r.observeWith(ctx, st, id, nil, res)
}

// recordApplied stores the last-applied body (in its stored form,
// storeApplied) and the ARM id.
func (r *Reconciler) recordApplied(ctx context.Context, st *state, id, stored string, more func(*unstructured.Unstructured)) error {
	base := st.obj.DeepCopy()
	setAnnotation(st.obj, core.AnnotationLastApplied, stored)
	r.seal.setARMID(st.obj, id)
	removeAnnotation(st.obj, core.AnnotationOperation) // a completed one
	if more != nil {
		more(st.obj)
	}
	return r.patchMeta(ctx, st, base)
}

// refusal is a write ARM refused with an object-change error, and the
// error.
type refusal struct {
	write [sha256.Size]byte // of generation, verb, id and body
	err   error
}
