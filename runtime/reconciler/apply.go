package reconciler

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
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
	if r.mem.takeCorrected(st.obj.GetUID()) && w.Create {
		// The record was dropped to correct drift: the resource exists,
		// and this PUT of the whole spec updates it (Updated, not Created).
		w.Create, w.Reason = false, WhyLive
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
			// kept in memory, with no apiserver write (pendingOf).
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

// desired builds the ARM body from spec, reading the Secrets it references
// in the object's namespace.
func (r *Reconciler) desired(ctx context.Context, st *state) (map[string]any, error) {
	secrets := r.Secrets
	if secrets == nil {
		secrets = r.Client
	}
	ns := st.obj.GetNamespace()
	refs := func(ref ObjectRef) (string, error) { return r.resolveRef(ctx, ns, ref) }
	values := func(at string, vf map[string]any) (any, error) { return r.resolveValue(ctx, ns, at, vf) }
	body, err := desiredBody(r.Desc, st.obj, refs, values, func(p descriptor.Path, name, key string) (string, error) {
		var s corev1.Secret
		if err := secrets.Get(ctx, client.ObjectKey{Namespace: st.obj.GetNamespace(), Name: name}, &s); err != nil {
			return "", fmt.Errorf("secret %q for %s: %w", name, p.FieldPath(specPath), err)
		}
		v, ok := s.Data[key]
		if !ok {
			return "", terminal("SecretKeyNotFound", fmt.Sprintf("secret %q has no key %q (%s)", name, key, p.FieldPath(specPath)))
		}
		return string(v), nil
	}, r.Hooks.MutateBody)
	return body, step(stepBody, err)
}

// stale reports whether the apiserver has newer reconciler annotations than
// the cached object.
//
// When this reconciler wrote the object since the operator started, the
// cached copy's resourceVersion answers without a read: older than our
// write means stale. (resourceVersions are etcd revisions, compared as
// numbers; one that does not parse falls back to the read.)
func (r *Reconciler) stale(ctx context.Context, st *state) (bool, error) {
	if st.obj.GetResourceVersion() != st.readVersion {
		return false, nil // written in this reconcile: obj is the apiserver's answer
	}
	if behind, known := r.ownWrite(st.obj); known {
		return behind, nil
	}
	if r.APIReader == nil || r.bornHere(st.obj) {
		return false, nil
	}
	// Only annotations are compared: the apiserver sends metadata alone.
	fresh := &metav1.PartialObjectMetadata{}
	fresh.SetGroupVersionKind(r.gvk())
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(st.obj), fresh); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	for _, k := range []string{core.AnnotationOperation, core.AnnotationLastApplied, core.AnnotationSeal} {
		if fresh.GetAnnotations()[k] != st.obj.GetAnnotations()[k] {
			return true, nil
		}
	}
	return false, nil
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

// One object per resource, and no silent takeover: before the first
// create of an object the reconciler checks that no other object of the
// kind (in any namespace) claims the ARM id, and GETs it — an existing
// resource this object did not create is never written. The claim (the
// sealed AnnotationARMID) is recorded before the PUT, so an operator
// killed after an accepted PUT still knows the resource is the object's.

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

// armCall sends one request with the object's credential and counts it.
// Its ARM errors carry the method (callError), which the error table reads.
func (r *Reconciler) armCall(ctx context.Context, st *state, verb, id string, payload []byte) (*arm.Result, error) {
	var res *arm.Result
	var err error
	c := st.arm.Client
	switch verb {
	case http.MethodGet:
		res, err = c.Get(ctx, id, r.Desc.APIVersion)
	case http.MethodPut:
		res, err = c.Put(ctx, id, r.Desc.APIVersion, payload)
	case http.MethodPatch:
		res, err = c.Patch(ctx, id, r.Desc.APIVersion, payload)
	case http.MethodDelete:
		res, err = c.Delete(ctx, id, r.Desc.APIVersion)
	}
	observeARM(verb, err)
	if err != nil {
		return res, &callError{method: verb, err: err}
	}
	return res, nil
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
	if arm.IsNotFound(err) && op.Verb == http.MethodDelete {
		return r.lostDelete(ctx, st, id)
	}
	if arm.IsNotFound(err) {
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
		// A DELETE's failed operation is shown as a refused DELETE is, and
		// the finalizer stays: the next reconcile sends DELETE again.
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

// lostDelete handles the poll of a DELETE answered 404 (ARM forgot the
// operation): the operation is dropped and the resource read; gone, the
// DELETE is done; there, the next reconcile sends DELETE again.
func (r *Reconciler) lostDelete(ctx context.Context, st *state, id string) (reconcile.Result, error) {
	base := st.obj.DeepCopy()
	removeAnnotation(st.obj, core.AnnotationOperation)
	inflight.Dec()
	if err := r.patchMeta(ctx, st, base); err != nil {
		return reconcile.Result{}, step(stepRecord, err)
	}
	_, err := r.armCall(ctx, st, http.MethodGet, id, nil)
	switch {
	case arm.IsNotFound(err):
		r.event(st, corev1.EventTypeNormal, core.EventDeleted, "DELETE "+id)
		return r.removeFinalizer(ctx, st)
	case err != nil:
		return r.fail(ctx, st, step(stepRead+" "+id, err))
	}
	return reconcile.Result{Requeue: true}, nil
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

// A create's long-running operation is followed from memory: the claim
// written before the PUT carries the create's intent (claim, above), which
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
