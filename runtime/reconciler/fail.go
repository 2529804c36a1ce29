package reconciler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
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
	stepClaim     = "claim the ARM id"
)

func stepWrite(verb, id string) string { return verb + " " + id }

// step wraps err with the step it happened in; nil stays nil.
func step(name string, err error) error {
	if err == nil {
		return nil
	}
	return &stepError{name: name, err: err}
}

// stepError is an error with the step it happened in: "<step>: <err>".
type stepError struct {
	name string
	err  error
}

func (e *stepError) Error() string { return e.name + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// polled reports whether err answered a poll of a long-running operation
// (the step poll the operation).
func polled(err error) bool {
	var se *stepError
	for e := err; errors.As(e, &se); e = se.err {
		if strings.HasPrefix(se.name, stepPoll) {
			return true
		}
	}
	return false
}

// fail turns an error into conditions, events and a requeue, by class
// (runtime/arm's error table for ARM answers):
//
//   - a reference waiting for its target: Ready=False WaitingForReference,
//     requeued by the target's watch, the sync period as a backstop.
//   - object-change (a terminal ARM 4xx, the reconciler's own terminal
//     errors): Ready=False and ActionRequired=True with ARM's code and
//     message, a reconcile.TerminalError: nothing is retried until the
//     object changes.
//   - retry: Ready=False with ARM's code, requeued after
//     Config.RetryBackoff (doubling per consecutive failure).
//   - world-change and name-taken: Ready=False and ActionRequired=True,
//     requeued slowly (Config.WorldBackoff, Config.NameTakenBackoff).
//
// A Warning Event is recorded once per distinct (reason, message): not on
// every retry. Errors that are neither ARM answers nor the reconciler's own
// (the apiserver, a connection) are returned for controller-runtime's
// backoff.
func (r *Reconciler) fail(ctx context.Context, st *state, err error) (reconcile.Result, error) {
	var te *terminalError
	var we *worldError
	var wr *waitingError
	if h := r.Hooks.ClassifyError; h != nil && !errors.As(err, &te) && !errors.As(err, &we) && !errors.As(err, &wr) {
		if terminal, reason, ok := h(err); ok && terminal {
			err = &terminalError{reason: reason, message: err.Error()}
		} else if ok {
			st.setCondition(false, core.ReasonReconciling, "retrying: "+err.Error())
			if werr := r.writeStatus(ctx, st); werr != nil {
				return reconcile.Result{}, step(stepStatus, werr)
			}
			return reconcile.Result{}, err
		}
	}
	switch {
	case errors.As(err, &te):
		r.eventOnce(st, te.reason, te.message)
		st.userMustAct(te.reason, te.message)
		st.refused = true
	case errors.As(err, &we):
		return r.wait(ctx, st, err, arm.ClassWorldChange, we.reason, we.message, true, 0)
	case errors.As(err, &wr):
		// A reference's target is missing or has no id: its watch
		// requeues the object; the sync period is the backstop.
		st.setCondition(false, core.ReasonWaitingForReference, wr.message)
		after := r.Config.SyncPeriod
		if wr.poll {
			after = r.Config.PollInterval
		}
		return reconcile.Result{RequeueAfter: after}, step(stepStatus, r.writeStatus(ctx, st))
	case errors.As(err, new(*arm.MalformedError)):
		// A truncated or misshapen answer: shown, retried with backoff.
		return r.wait(ctx, st, err, arm.ClassRetry, core.ReasonMalformedAnswer, err.Error(), false, 0)
	default:
		c, ok := arm.Classify(err, arm.Call{Method: callMethod(err), AfterWrite: r.afterWrite(st), Poll: polled(err)})
		if !ok {
			st.setCondition(false, core.ReasonReconciling, "retrying: "+err.Error())
			if werr := r.writeStatus(ctx, st); werr != nil {
				log.FromContext(ctx).Error(werr, "write status")
			}
			return reconcile.Result{}, err
		}
		armErrors.WithLabelValues(metricCode(c), string(c.Class)).Inc()
		if c.Class != arm.ClassObjectChange {
			return r.retryARM(ctx, st, err, c)
		}
		if c.CreateOnly {
			c = r.createOnlyRefusal(st, c)
		}
		r.eventOnce(st, c.Reason, c.Message)
		st.userMustAct(c.Reason, c.Message)
		st.refused = true
	}
	if werr := r.writeStatus(ctx, st); werr != nil {
		return reconcile.Result{}, step(stepStatus, werr)
	}
	return reconcile.Result{}, reconcile.TerminalError(err)
}

// retryARM applies a class other than object-change to an ARM error.
func (r *Reconciler) retryARM(ctx context.Context, st *state, err error, c arm.Classification) (reconcile.Result, error) {
	msg, mustAct := c.Message, c.Class != arm.ClassRetry
	if c.Rule != nil && c.Rule.Token {
		msg = st.arm.Name + ": " + msg
	}
	if c.Rule != nil && c.Rule.Register && r.Config.RegisterProviders {
		msg, mustAct = r.registerProvider(ctx, st, strings.TrimSuffix(msg, " "+c.Rule.Hint))
	}
	return r.wait(ctx, st, err, c.Class, c.Reason, msg, mustAct, retryAfter(err))
}

// wait records a retried error and requeues after the class's backoff (at
// least atLeast). mustAct marks an error the user must act on
// (ActionRequired=True) though the operator keeps retrying.
func (r *Reconciler) wait(ctx context.Context, st *state, err error, class arm.Class, reason, msg string, mustAct bool, atLeast time.Duration) (reconcile.Result, error) {
	st.failed = true
	r.eventOnce(st, reason, msg)
	if mustAct {
		st.userMustAct(reason, msg)
	} else {
		st.setCondition(false, reason, msg)
	}
	n := r.mem.fail(st.obj.GetUID(), class)
	var after time.Duration
	switch class {
	case arm.ClassRetry:
		after = r.Config.RetryBackoff.After(n)
	case arm.ClassNameTaken:
		after = r.Config.NameTakenBackoff.After(n)
	default:
		after = r.Config.WorldBackoff.After(n)
	}
	after = max(after, atLeast)
	if werr := r.writeStatus(ctx, st); werr != nil {
		return reconcile.Result{}, step(stepStatus, werr)
	}
	log.FromContext(ctx).Info("retrying", "class", class, "reason", reason, "attempt", n, "after", after, "error", err.Error())
	return reconcile.Result{RequeueAfter: after}, nil
}

// eventOnce records a Warning Event unless the Ready condition already
// says the same (reason and message): one Event per distinct error, not
// one per retry.
func (r *Reconciler) eventOnce(st *state, reason, msg string) {
	if c := meta.FindStatusCondition(conditions(st.obj), core.ConditionReady); c != nil && c.Status == metav1.ConditionFalse && c.Reason == reason && c.Message == msg {
		return
	}
	r.event(st, corev1.EventTypeWarning, reason, msg)
}

// afterWrite reports whether ARM accepted a write of the object moments
// ago: in this reconcile, or within Config.ReadAfterWrite.
func (r *Reconciler) afterWrite(st *state) bool {
	if st.wrote {
		return true
	}
	return r.mem.acceptedSince(st.obj.GetUID(), r.Config.ReadAfterWrite)
}

// wroteNow records that ARM accepted a write of the object.
func (r *Reconciler) wroteNow(st *state) {
	st.wrote = true
	r.mem.accept(st.obj.GetUID(), time.Now())
}

func retryAfter(err error) time.Duration {
	var ae *arm.Error
	if errors.As(err, &ae) {
		return ae.RetryAfter
	}
	return 0
}

func metricCode(c arm.Classification) string {
	if c.Code != "" {
		return c.Code
	}
	return c.Reason
}

// callError carries the method of the ARM call an error answered.
type callError struct {
	method string
	err    error
}

func (e *callError) Error() string { return e.err.Error() }
func (e *callError) Unwrap() error { return e.err }

func callMethod(err error) string {
	var ce *callError
	if errors.As(err, &ce) {
		return ce.method
	}
	return ""
}

func (r *Reconciler) event(st *state, typ, reason, msg string) {
	if r.Recorder != nil {
		r.Recorder.Event(st.obj, typ, reason, msg)
	}
}

// claimRefused shows a refused claim: Ready=False, ActionRequired=True,
// one Warning event; the object is looked at again after the sync period
// (the other object or resource may go).
func (r *Reconciler) claimRefused(ctx context.Context, st *state, reason, message string) (reconcile.Result, error) {
	r.eventOnce(st, reason, message)
	st.userMustAct(reason, message)
	return reconcile.Result{RequeueAfter: r.syncPeriod(st)}, step(stepStatus, r.writeStatus(ctx, st))
}

// registerProvider asks ARM to register the object's subscription with the
// resource provider of its id (Config.RegisterProviders), once per
// registerAgain, without waiting for it. It returns the condition message
// and whether the user must still act (the request failed).
func (r *Reconciler) registerProvider(ctx context.Context, st *state, msg string) (string, bool) {
	sub, ns := arm.ProviderOf(st.id)
	if sub == "" || ns == "" || st.arm.Client == nil {
		return msg, true
	}
	asked := fmt.Sprintf("%s The operator asked Azure to register subscription %s with %s (--register-providers) and retries.", msg, sub, ns)
	key := st.arm.Name + "|" + strings.ToLower(sub+"/"+ns)
	if v, ok := r.providers.m.Load(key); ok && time.Since(v.(time.Time)) < registerAgain {
		return asked, false
	}
	if err := arm.RegisterProvider(ctx, st.arm.Client, sub, ns); err != nil {
		return fmt.Sprintf("%s The operator could not register %s: %v", msg, ns, err), true
	}
	r.providers.m.Store(key, time.Now())
	r.event(st, corev1.EventTypeNormal, core.EventRegisteringProvider, fmt.Sprintf("POST /subscriptions/%s/providers/%s/register", sub, ns))
	return asked, false
}

// createOnlyRefusal rewrites the classification of a create-only refusal:
// the message names the spec property, and the metric counts it.
func (r *Reconciler) createOnlyRefusal(st *state, c arm.Classification) arm.Classification {
	paths := refusedPaths(r.Desc, c.Property, st.write.changed())
	// The metric's path is the table form: one series per property, not
	// per index.
	var table []string
	for _, p := range paths {
		table = append(table, tablePath(p))
	}
	slices.Sort(table)
	label := strings.Join(slices.Compact(table), ",")
	if label == "" {
		label = "unknown"
	}
	createOnlyRefusals.WithLabelValues(r.Desc.Kind, label).Inc()
	c.Message = createOnlyMessage(r.Desc, paths, c.Message)
	return c
}

// terminalError is a problem the user must fix.
type terminalError struct{ reason, message string }

func (e *terminalError) Error() string { return e.reason + ": " + e.message }

func terminal(reason, message string) error { return &terminalError{reason: reason, message: message} }

// worldError is a problem a change outside the object cures (a Secret
// created or fixed): retried slowly, like ARM's world-change errors.
type worldError struct{ reason, message string }

func (e *worldError) Error() string { return e.reason + ": " + e.message }

func waitWorld(reason, message string) error { return &worldError{reason: reason, message: message} }
