package reconciler

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/runtime/arm"
)

// The steps of a reconcile, which every error it returns names.
const (
	stepRead      = "read"
	stepOwner     = "resolve the owner"
	stepFinalizer = "add the finalizer"
	stepBody      = "build the ARM body"
	stepAdopt     = "read the resource to adopt"
	stepDecide    = "decide the write"
	stepStale     = "check the cached object"
	stepRecord    = "record the write on the object"
	stepPoll      = "poll the operation"
	stepObserve   = "read the resource from ARM"
	stepStatus    = "write status"
	stepDelete    = "delete in ARM"
)

func stepWrite(verb, id string) string { return verb + " " + id }

// step wraps err with the step it happened in; nil stays nil.
func step(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Event reasons.
const (
	EventCreated            = "Created"
	EventPatched            = "Patched"
	EventUpdated            = "Updated"
	EventDeleted            = "Deleted"
	EventOperationStarted   = "OperationStarted"
	EventOperationSucceeded = "OperationSucceeded"
	EventDriftDetected      = "DriftDetected"
	EventDetached           = "Detached"
	EventNoDelete           = "NoDelete"
)

// fail turns an error into conditions: terminal errors stop retries until
// the object changes, others are retried with backoff.
func (r *Reconciler) fail(ctx context.Context, st *state, err error) (reconcile.Result, error) {
	var te *terminalError
	var ae *arm.Error
	if h := hooksFor(r.gvk()).ClassifyError; h != nil && !errors.As(err, &te) {
		if terminal, reason, ok := h(err); ok && terminal {
			err = &terminalError{reason: reason, message: err.Error()}
		} else if ok {
			st.setCondition(false, ReasonReconciling, "retrying: "+err.Error())
			if werr := r.writeStatus(ctx, st); werr != nil {
				return reconcile.Result{}, step(stepStatus, werr)
			}
			return reconcile.Result{}, err
		}
	}
	switch {
	case errors.As(err, &te):
		st.userMustAct(te.reason, te.message)
		r.event(st, corev1.EventTypeWarning, te.reason, te.message)
	case arm.IsTerminal(err) && errors.As(err, &ae):
		msg := ae.Message
		if ae.Target != "" {
			msg += " (target " + ae.Target + ")"
		}
		st.userMustAct(ae.Code, "Azure refused the request; fix the spec: "+msg)
		r.event(st, corev1.EventTypeWarning, ae.Code, msg)
	default:
		st.setCondition(false, ReasonReconciling, "retrying: "+err.Error())
		if werr := r.writeStatus(ctx, st); werr != nil {
			log.FromContext(ctx).Error(werr, "write status")
		}
		return reconcile.Result{}, err
	}
	if werr := r.writeStatus(ctx, st); werr != nil {
		return reconcile.Result{}, step(stepStatus, werr)
	}
	return reconcile.Result{}, reconcile.TerminalError(err)
}

func (r *Reconciler) event(st *state, typ, reason, msg string) {
	if r.Recorder != nil {
		r.Recorder.Event(st.obj, typ, reason, msg)
	}
}
