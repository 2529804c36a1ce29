package reconciler

import (
	"context"
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Condition types and reasons. Ready summarises; ActionRequired separates
// "you must act" (True: a terminal ARM error, a missing adoption target, a
// failed provisioning) from "the operator is retrying or waiting" (False).
const (
	ConditionReady              = "Ready"
	ConditionActionRequired     = "ActionRequired"
	ReasonNone                  = "None"
	ReasonSucceeded             = "Succeeded"
	ReasonReconciling           = "Reconciling"
	ReasonWaitingForOwner       = "WaitingForOwner"
	ReasonAzureResourceNotFound = "AzureResourceNotFound"
	ReasonPlan                  = "Plan"
	ReasonFailed                = "Failed"
	// ReasonUnknownPolicy: the reconcile-policy annotation is not a policy;
	// nothing is sent to ARM until it is.
	ReasonUnknownPolicy = "UnknownPolicy"
)

// state is one reconcile's view of the object.
type state struct {
	obj  *unstructured.Unstructured
	orig map[string]any // status as read
	// readVersion is the resourceVersion obj had when it was read.
	readVersion string
	policy      Policy
	// policyErr is set when the policy annotation is not a policy (policy
	// is then "", which permits nothing).
	policyErr error
	owner     *unstructured.Unstructured
	// ownerExists is set when the owner custom resource exists (Ready or not).
	ownerExists bool
	cond        *metav1.Condition
	// mustAct marks cond as something only the user can fix.
	mustAct bool
	body    map[string]any // GET body for status, if read
	// wrote is set when this reconcile wrote to ARM, or saw its operation
	// end: the GET that follows is ARM's answer to what was applied, not
	// drift (drift.go, settled).
	wrote  bool
	plan   map[string]any // status.reconcilePlan, under the plan policy
	lastOp string         // status.lastOperation to write, if it changed
}

// opHash identifies an operation in status.lastOperation.
func opHash(op *operation) string { return op.Verb + " " + hash(op.Token) }

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
	return st.obj.GetAnnotations()[AnnotationLastApplied]
}

func newState(obj *unstructured.Unstructured) *state {
	st := &state{obj: obj, readVersion: obj.GetResourceVersion()}
	st.policy, st.policyErr = PolicyOf(obj.GetAnnotations())
	if s, ok := obj.Object["status"].(map[string]any); ok {
		st.orig = runtime.DeepCopyJSON(s)
	}
	return st
}

func (st *state) operation() *operation {
	raw := st.obj.GetAnnotations()[AnnotationOperation]
	if raw == "" {
		return nil
	}
	var op operation
	if json.Unmarshal([]byte(raw), &op) != nil || op.Token == "" {
		return nil
	}
	return &op
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
	st.cond = &metav1.Condition{Type: ConditionReady, Status: status, Reason: reason, Message: message, ObservedGeneration: st.obj.GetGeneration()}
}

func (st *state) setStatusBody(body map[string]any) { st.body = body }

// writeStatus patches the status subresource when it changed: the GET body
// (if one was read, else the previous ARM fields), conditions and
// observedGeneration.
func (r *Reconciler) writeStatus(ctx context.Context, st *state) error {
	status := map[string]any{}
	if st.body != nil {
		for k, v := range st.body {
			status[k] = v
		}
	} else {
		for k, v := range st.orig {
			status[k] = v
		}
	}
	conds := conditions(st.obj)
	if st.cond != nil {
		meta.SetStatusCondition(&conds, *st.cond)
		act := metav1.Condition{Type: ConditionActionRequired, Status: metav1.ConditionFalse, Reason: ReasonNone, ObservedGeneration: st.cond.ObservedGeneration}
		if st.mustAct {
			act.Status, act.Reason, act.Message = metav1.ConditionTrue, st.cond.Reason, st.cond.Message
		}
		meta.SetStatusCondition(&conds, act)
	}
	var list []any
	for _, c := range conds {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
		if err != nil {
			return err
		}
		list = append(list, m)
	}
	if list != nil {
		status["conditions"] = list
	}
	status["observedGeneration"] = st.obj.GetGeneration()
	if st.plan != nil {
		status["reconcilePlan"] = st.plan
	} else {
		delete(status, "reconcilePlan")
	}
	if st.lastOp != "" {
		status["lastOperation"] = st.lastOp
	} else if v, ok := st.orig["lastOperation"]; ok {
		status["lastOperation"] = v
	}
	status = runtime.DeepCopyJSON(status)
	if equalStatus(st.orig, status) {
		return nil
	}
	wasReady := ready(st.obj)
	base := st.obj.DeepCopy()
	st.obj.Object["status"] = status
	if err := r.Client.Status().Patch(ctx, st.obj, client.MergeFrom(base)); err != nil {
		return err
	}
	if !wasReady && ready(st.obj) {
		observeReady(st.obj)
	}
	st.orig = status
	return nil
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

// terminalError is a problem the user must fix.
type terminalError struct{ reason, message string }

func (e *terminalError) Error() string { return e.reason + ": " + e.message }

func terminal(reason, message string) error { return &terminalError{reason: reason, message: message} }
