package reconciler

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/credentials"
)

// state is one reconcile's view of the object.
type state struct {
	obj  *unstructured.Unstructured
	orig map[string]any // status as read
	// readVersion is the resourceVersion obj had when it was read.
	readVersion string
	policy      core.Policy
	// policyErr is set when the policy annotation is not a policy (policy
	// is then "", which permits nothing).
	policyErr error
	owner     *unstructured.Unstructured
	// ownerExists is set when the owner custom resource exists (Ready or not).
	ownerExists bool
	cond        *metav1.Condition
	// mustAct marks cond as something only the user can fix.
	mustAct bool
	// arm is the client and subscription of the object's credential.
	arm credentials.Binding
	// id is the resource's ARM id, once resolved.
	id string
	// wrote is set when ARM accepted a write (or an operation ended) in
	// this reconcile: a 404 on the GET that follows is ARM's
	// read-after-write lag.
	wrote bool
	// failed is set when the reconcile ended on an error the reconciler
	// retries itself (a classified one): its backoff counts on.
	failed bool
	// refused is set when this reconcile ended on an object-change error:
	// nothing is retried until the object changes.
	refused bool
	body    map[string]any // GET body for status, if read
	plan    map[string]any // status.reconcilePlan, under the plan policy
	lastOp  string         // status.lastOperation to write, if it changed
	// forced is set when the drift observer asked for a GET.
	forced bool
	// ownerRefPending is set when the object lacks the owner reference to
	// st.owner: the next metadata write adds it (patchMeta).
	ownerRefPending bool
	// seal checks the records read back (seal.go); without a key (inFlight)
	// records are read unchecked.
	seal sealer
	// write is the write being sent, for the message of a create-only
	// refusal (refusal.go); nil before one is decided.
	write *pendingWrite
}

// settled reports an object whose status describes its current spec:
// created (status.id), Ready for this generation. With nothing to write,
// such an object needs no GET when the drift observer watches it.
func (st *state) settled() bool {
	if st.orig == nil || st.policy.OnlyPlans() {
		return false
	}
	if id, _ := st.orig["id"].(string); id == "" {
		return false
	}
	gen := st.obj.GetGeneration()
	if og, ok := st.orig["observedGeneration"]; !ok || fmt.Sprint(og) != fmt.Sprint(gen) {
		return false
	}
	c := meta.FindStatusCondition(conditions(st.obj), core.ConditionReady)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == gen
}

// opHash identifies an operation in status.lastOperation. An intent (a
// create recorded before its PUT, no token) is identified by its body and
// start.
func opHash(op *operation) string {
	if op.completes != "" {
		return op.completes
	}
	if op.Token == "" {
		return op.Verb + " " + hash(op.Applied+" "+op.Started)
	}
	return op.Verb + " " + hash(op.Token)
}

// polled reports an operation ARM is running (it has a resume token), as
// opposed to an intent recorded before a create.
func (op *operation) polled() bool { return op != nil && op.Token != "" }

// opDone reports an operation the status records as finished.
func (st *state) opDone(op *operation) bool {
	done, _ := st.orig["lastOperation"].(string)
	return done != "" && done == opHash(op)
}

// lastApplied is the body last applied: the annotation, or the body of a
// finished operation still on the object.
func (st *state) lastApplied() string {
	if op := st.operation(); op != nil && (st.opDone(op) || st.lastOp == opHash(op)) && op.Applied != "" {
		return op.Applied
	}
	return st.obj.GetAnnotations()[core.AnnotationLastApplied]
}

func newState(obj *unstructured.Unstructured) *state {
	st := &state{obj: obj, readVersion: obj.GetResourceVersion()}
	st.policy, st.policyErr = core.PolicyOf(obj.GetAnnotations())
	if s, ok := obj.Object["status"].(map[string]any); ok {
		st.orig = runtime.DeepCopyJSON(s)
	}
	return st
}

// inFlight reports an object with an operation that status does not record
// as finished.
func inFlight(obj *unstructured.Unstructured) bool {
	st := state{obj: obj}
	st.orig, _ = obj.Object["status"].(map[string]any)
	op := st.operation()
	return op.polled() && !st.opDone(op)
}

// operation is the operation in flight recorded on the object; nil when
// there is none or its record does not verify (see forgedOperation).
func (st *state) operation() *operation {
	raw := st.obj.GetAnnotations()[core.AnnotationOperation]
	if st.seal.key == nil {
		return parseOperation(raw)
	}
	op, ok := st.seal.openOperation(st.obj.GetUID(), raw)
	if !ok {
		if op != nil && !op.polled() && st.opDone(op) {
			// Status, which only the operator writes (the status
			// subresource), records this finished create as done: a record
			// sealed under another key (a new state key) still counts. It
			// is never polled.
			return op
		}
		return nil
	}
	return op
}

// claimedID is the ARM id the object claimed: its sealed AnnotationARMID;
// else, when the seal does not verify (a new state key), the annotation
// if status — which only the operator writes — holds the same id and a
// finished operation. forged reports an annotation neither vouches for.
func (st *state) claimedID() (id string, forged bool) {
	id, forged = st.seal.armID(st.obj)
	if !forged {
		return id, false
	}
	a := st.obj.GetAnnotations()[core.AnnotationARMID]
	if sid, _ := st.orig["id"].(string); sid != "" && strings.EqualFold(a, sid) {
		if done, _ := st.orig["lastOperation"].(string); done != "" {
			return a, false
		}
	}
	return "", true
}

// forgedOperation reports an operation annotation that is not a record
// sealed to this object by this operator: edited, copied from another
// object, or written by hand.
func (st *state) forgedOperation() bool {
	raw := st.obj.GetAnnotations()[core.AnnotationOperation]
	return raw != "" && st.seal.key != nil && st.operation() == nil
}

// userMustAct sets Ready=False and ActionRequired=True with the reason.
func (st *state) userMustAct(reason, message string) {
	st.setCondition(false, reason, message)
	st.mustAct = true
}

func (st *state) setCondition(ok bool, reason, message string) {
	st.mustAct = false
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	st.cond = &metav1.Condition{Type: core.ConditionReady, Status: status, Reason: reason, Message: message, ObservedGeneration: st.obj.GetGeneration()}
}

func (st *state) setStatusBody(body map[string]any) { st.body = body }

// writeStatus writes status when it changed. With a GET body read in this
// reconcile (normalized by observe: what the schema knows, no nulls), status
// becomes that body with the operator's members — conditions, observedGeneration,
// lastOperation, reconcilePlan — as one JSON patch that replaces status;
// without one, only the operator's members are patched (the ARM members
// stay as they are: the cache may not hold them, see TransformForCache).
// Whether the ARM part changed is decided on digests, so the cache need
// not keep it.
func (r *Reconciler) writeStatus(ctx context.Context, st *state) error {
	ops, err := r.operatorStatus(st)
	if err != nil {
		return err
	}
	body := st.body // normalized by observe
	sameBody := true
	if body != nil {
		sameBody = sameDigest(digest(body), digestOf(st.orig))
	}
	if sameBody && equalStatus(operatorPart(st.orig), ops) {
		return nil
	}
	wasReady := ready(st.obj)
	var patch client.Patch
	status := map[string]any{}
	if body != nil {
		maps.Copy(status, body)
		maps.Copy(status, ops)
		patch = client.RawPatch(types.JSONPatchType, mustMarshalJSON([]any{map[string]any{"op": "add", "path": "/status", "value": status}}))
	} else {
		merge := map[string]any{}
		maps.Copy(merge, ops)
		if _, ok := ops["reconcilePlan"]; !ok {
			if _, had := st.orig["reconcilePlan"]; had {
				merge["reconcilePlan"] = nil
			}
		}
		patch = client.RawPatch(types.MergePatchType, mustMarshalJSON(map[string]any{"status": merge}))
		maps.Copy(status, st.orig)
		delete(status, "reconcilePlan")
		maps.Copy(status, ops)
	}
	st.obj.Object["status"] = status
	ctx, cancel := statusContext(ctx)
	defer cancel()
	if err := r.Client.Status().Patch(ctx, st.obj, patch); err != nil {
		return err
	}
	if !wasReady && ready(st.obj) {
		observeReady(st.obj)
	}
	st.orig = status
	return nil
}

// operatorPart is the operator's members of a status.
func operatorPart(status map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range status {
		if operatorStatus[k] && k != statusDigest {
			out[k] = v
		}
	}
	return out
}

// operatorStatus computes the operator's members of status: conditions
// with this reconcile's Ready (and ActionRequired), observedGeneration,
// lastOperation and, under the plan policy, reconcilePlan.
func (r *Reconciler) operatorStatus(st *state) (map[string]any, error) {
	status := map[string]any{}
	conds := conditions(st.obj)
	if st.cond != nil {
		meta.SetStatusCondition(&conds, *st.cond)
		act := metav1.Condition{Type: core.ConditionActionRequired, Status: metav1.ConditionFalse, Reason: core.ReasonNone, ObservedGeneration: st.cond.ObservedGeneration}
		if st.mustAct {
			act.Status, act.Reason, act.Message = metav1.ConditionTrue, st.cond.Reason, st.cond.Message
		}
		meta.SetStatusCondition(&conds, act)
	}
	var list []any
	for _, c := range conds {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
		if err != nil {
			return nil, err
		}
		list = append(list, m)
	}
	if list != nil {
		status["conditions"] = list
	}
	status["observedGeneration"] = st.obj.GetGeneration()
	if st.plan != nil {
		status["reconcilePlan"] = st.plan
	}
	if st.lastOp != "" {
		status["lastOperation"] = st.lastOp
	} else if v, ok := st.orig["lastOperation"]; ok {
		status["lastOperation"] = v
	}
	return runtime.DeepCopyJSON(status), nil
}

func mustMarshalJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// equalStatus compares statuses through JSON, so int64(1) equals 1.0.
func equalStatus(a, b map[string]any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	var x, y any
	_ = json.Unmarshal(ab, &x)
	_ = json.Unmarshal(bb, &y)
	return reflect.DeepEqual(x, y)
}

func setAnnotation(obj *unstructured.Unstructured, k, v string) {
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[k] = v
	obj.SetAnnotations(a)
}

func removeAnnotation(obj *unstructured.Unstructured, k string) {
	a := obj.GetAnnotations()
	if _, ok := a[k]; !ok {
		return
	}
	delete(a, k)
	obj.SetAnnotations(a)
}

func ownerRef(o *unstructured.Unstructured) metav1.OwnerReference {
	f := false
	return metav1.OwnerReference{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Name: o.GetName(), UID: o.GetUID(), BlockOwnerDeletion: &f}
}

// settle forgets an object's consecutive failures when its reconcile did
// not end on a retried error, and its last write once it is gone.
func (r *Reconciler) settle(st *state) {
	uid := st.obj.GetUID()
	if st.settledNow() {
		// Only Ready ends a run of failures or of writes: an accepted write
		// that did not settle the object keeps the backoff growing.
		r.mem.resetFailures(uid)
		if !st.wrote {
			r.mem.resetBudget(uid)
		}
	}
}

// remember records the resourceVersion of the reconciler's last write to
// obj (when the reconcile wrote it), and forgets objects that are gone.
func (r *Reconciler) remember(st *state) {
	obj := st.obj
	if !obj.GetDeletionTimestamp().IsZero() && !controllerutil.ContainsFinalizer(obj, core.Finalizer) {
		r.mem.forget(obj.GetUID())
		return
	}
	if rv := obj.GetResourceVersion(); rv != st.readVersion {
		if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
			r.mem.wrote(obj.GetUID(), n)
		}
	}
}

// statusContext is ctx, or — when the reconcile's deadline has passed — a
// short context of its own, so that the status says what happened.
func statusContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return ctx, func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
}

// settledNow reports a reconcile that ended Ready=True.
func (st *state) settledNow() bool {
	return st.cond != nil && st.cond.Type == core.ConditionReady && st.cond.Status == metav1.ConditionTrue
}
