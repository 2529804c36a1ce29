package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
	armmetrics "github.com/armature-dev/armature/runtime/metrics"
)

var (
	actionRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_action_requests_total", Help: "ARM requests sent for Actions (POST and polls), by kind, action, verb and outcome code.",
	}, []string{"kind", "action", "verb", "code"})
	actionsFinished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_actions_finished_total", Help: "Actions that ended, by kind, action and phase (Succeeded or Failed).",
	}, []string{"kind", "action", "phase"})
)

// RegisterMetrics registers the Action controller's collectors with the
// registry of the binary that serves them (the operator's).
func RegisterMetrics(r prometheus.Registerer) error {
	return armmetrics.Register(r, actionRequests, actionsFinished)
}

func observe(d *descriptor.Descriptor, a *descriptor.Action, verb string, err error) {
	code := "ok"
	var ae *arm.Error
	switch {
	case errors.As(err, &ae):
		code = strconv.Itoa(ae.Status)
	case err != nil:
		code = "error"
	}
	actionRequests.WithLabelValues(d.Kind, a.Name, verb, code).Inc()
}

// patchStatus applies mutate to the status and patches it under an
// optimistic lock: a stale copy of the Action (an old cache entry, another
// worker or replica) never overwrites a newer status. conflict is true
// when the lock failed; the caller requeues and reads again.
//
// Once this reconcile holds the claim (the status it read has sentAt), a
// conflict can only come from someone else's change of the object (a
// label): the patch is retried on a fresh read that still shows the same
// claim, so the answer of an action that was sent is never lost.
func (r *Reconciler) patchStatus(ctx context.Context, a *v1alpha1.Action, mutate func(*v1alpha1.ActionStatus)) (conflict bool, err error) {
	for attempt := 1; ; attempt++ {
		base := a.DeepCopy()
		mutate(&a.Status)
		a.Status.ObservedGeneration = a.Generation
		err = r.Client.Status().Patch(ctx, a, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
		if !apierrors.IsConflict(err) {
			return false, err
		}
		claim := base.Status.SentAt
		if claim == nil || attempt == 3 {
			return true, nil
		}
		fresh := &v1alpha1.Action{}
		if err := r.reader().Get(ctx, client.ObjectKeyFromObject(a), fresh); err != nil {
			return false, err
		}
		if fresh.Status.SentAt == nil || !fresh.Status.SentAt.Equal(claim) || done(fresh) {
			return true, nil
		}
		*a = *fresh
	}
}

// reader reads past the cache: APIReader, else Client.
func (r *Reconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}

// setReady sets Ready and ActionRequired.
func setReady(a *v1alpha1.Action, st *v1alpha1.ActionStatus, ok, mustAct bool, reason, msg string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: core.ConditionReady, Status: status, Reason: reason, Message: msg, ObservedGeneration: a.Generation})
	act := metav1.Condition{Type: core.ConditionActionRequired, Status: metav1.ConditionFalse, Reason: core.ReasonNone, ObservedGeneration: a.Generation}
	if mustAct {
		act.Status, act.Reason, act.Message = metav1.ConditionTrue, reason, msg
	}
	meta.SetStatusCondition(&st.Conditions, act)
}

func readyCondition(a *v1alpha1.Action) *metav1.Condition {
	return meta.FindStatusCondition(a.Status.Conditions, core.ConditionReady)
}

// wait keeps the Action Pending with a reason, writing only when the
// reason or message changes.
func (r *Reconciler) wait(ctx context.Context, a *v1alpha1.Action, reason, msg string, after time.Duration) (reconcile.Result, error) {
	if c := readyCondition(a); a.Status.Phase == v1alpha1.PhasePending && c != nil && c.Reason == reason && c.Message == msg {
		return reconcile.Result{RequeueAfter: after}, nil
	}
	conflict, err := r.patchStatus(ctx, a, func(st *v1alpha1.ActionStatus) {
		st.Phase = v1alpha1.PhasePending
		setReady(a, st, false, false, reason, msg)
	})
	if err != nil || conflict {
		return reconcile.Result{Requeue: conflict}, err
	}
	r.event(a, corev1.EventTypeNormal, reason, msg)
	return reconcile.Result{RequeueAfter: after}, nil
}

// claim records the intent to send: phase Running with sentAt. ok is
// false when another copy of the Action got there first.
func (r *Reconciler) claim(ctx context.Context, a *v1alpha1.Action, id, apiVersion string) (bool, error) {
	now := metav1.Now()
	conflict, err := r.patchStatus(ctx, a, func(st *v1alpha1.ActionStatus) {
		st.Phase = v1alpha1.PhaseRunning
		if st.StartTime == nil {
			st.StartTime = &now
		}
		st.SentAt = &now
		st.TargetID, st.APIVersion = id, apiVersion
		setReady(a, st, false, false, ReasonSending, "POST "+id+"/"+a.Spec.Action+" is being sent")
	})
	return !conflict && err == nil, err
}

// unclaim puts the Action back to Pending after an answer that says the
// action did not run (or one that only reads), to be sent again later.
func (r *Reconciler) unclaim(ctx context.Context, a *v1alpha1.Action, msg string, after time.Duration) (reconcile.Result, error) {
	conflict, err := r.patchStatus(ctx, a, func(st *v1alpha1.ActionStatus) {
		st.Phase = v1alpha1.PhasePending
		st.SentAt = nil
		setReady(a, st, false, false, ReasonRetrying, msg)
	})
	if err != nil || conflict {
		return reconcile.Result{Requeue: conflict}, err
	}
	r.event(a, corev1.EventTypeNormal, ReasonRetrying, msg)
	return reconcile.Result{RequeueAfter: after, Requeue: after == 0}, nil
}

// operationStarted keeps the resume token of a long-running action.
func (r *Reconciler) operationStarted(ctx context.Context, a *v1alpha1.Action, res *arm.Result) (reconcile.Result, error) {
	now := metav1.Now()
	conflict, err := r.patchStatus(ctx, a, func(st *v1alpha1.ActionStatus) {
		st.Operation = &v1alpha1.ActionOperation{ResumeToken: res.Token, StartedAt: &now}
		setReady(a, st, false, false, ReasonRunning, a.Spec.Action+" is a long-running operation; it is polled")
	})
	if err != nil || conflict {
		return reconcile.Result{Requeue: conflict}, err
	}
	r.event(a, corev1.EventTypeNormal, EventOperationStarted, a.Spec.Action+" is a long-running operation")
	return reconcile.Result{RequeueAfter: r.after(res)}, nil
}

// fail ends the Action Failed: a condition the user must act on, ARM's
// error in status, an event, and a terminal error (no requeue).
func (r *Reconciler) fail(ctx context.Context, a *v1alpha1.Action, reason, msg string, ae *arm.Error) (reconcile.Result, error) {
	now := metav1.Now()
	conflict, err := r.patchStatus(ctx, a, func(st *v1alpha1.ActionStatus) {
		st.Phase = v1alpha1.PhaseFailed
		st.CompletionTime = &now
		st.Operation = nil
		if ae != nil {
			st.Error = &v1alpha1.ActionError{Status: ae.Status, Code: ae.Code, Message: ae.Message, Target: ae.Target}
		}
		setReady(a, st, false, true, reason, msg)
	})
	if err != nil || conflict {
		return reconcile.Result{Requeue: conflict}, err
	}
	r.event(a, corev1.EventTypeWarning, reason, msg)
	finished(r, a, v1alpha1.PhaseFailed)
	return reconcile.Result{}, reconcile.TerminalError(errors.New(reason + ": " + msg))
}

func finished(r *Reconciler, a *v1alpha1.Action, phase v1alpha1.ActionPhase) {
	kind := a.Spec.Target.Kind
	if d, ferr := r.Registry.ForTarget(a.Spec.Target); ferr == nil {
		kind = d.Kind
	}
	actionsFinished.WithLabelValues(kind, a.Spec.Action, string(phase)).Inc()
}

// targetReady reports the Ready condition of a target custom resource,
// read whole.
func targetReady(o *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == core.ConditionReady {
			return m["status"] == string(metav1.ConditionTrue)
		}
	}
	return false
}

func unmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

func marshal(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}
