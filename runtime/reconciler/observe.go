package reconciler

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// observe GETs the resource into status, corrects drift and requeues after
// the sync period.
func (r *Reconciler) observe(ctx context.Context, st *state, id string, desired map[string]any) (reconcile.Result, error) {
	return r.observeWith(ctx, st, id, desired, nil)
}

// observeWith is observe with the resource already read (the final poll of
// an operation returns it): no second GET.
func (r *Reconciler) observeWith(ctx context.Context, st *state, id string, desired map[string]any, read *arm.Result) (reconcile.Result, error) {
	res, err := read, error(nil)
	if res == nil || res.Body == nil {
		res, err = r.armCall(ctx, st, http.MethodGet, id, nil)
	}
	if err != nil {
		if arm.IsNotFound(err) && st.lastApplied() != "" && st.policy.CorrectsDrift() && !r.afterWrite(st) {
			// Deleted outside the operator: forget it, the next reconcile
			// creates it again. (Right after a write, a 404 is ARM's
			// read-after-write lag: fail retries it.)
			base := st.obj.DeepCopy()
			removeAnnotation(st.obj, core.AnnotationLastApplied)
			removeAnnotation(st.obj, core.AnnotationOperation)
			r.event(st, corev1.EventTypeWarning, core.EventDriftDetected, id+" was deleted outside the operator; recreating it")
			driftCorrections.Inc()
			return reconcile.Result{Requeue: true}, step(stepRecord, r.patchMeta(ctx, st, base))
		}
		return r.fail(ctx, st, step(stepObserve, err))
	}
	switch {
	case desired != nil:
	case st.policy.CorrectsDrift():
		if desired, err = r.desired(ctx, st); err != nil {
			return r.fail(ctx, st, err)
		}
	case st.policy == core.PolicySkip:
		// Under skip drift is only reported: a body that cannot be built
		// (a Secret it references is missing) reports none.
		desired, _ = r.desired(ctx, st)
	}
	// The body as the apiserver stores it in status (normalized).
	body := normalize(r.Desc, res.Body)
	// Drift at spec.operatorSpec.ignoreChanges paths is reported, never
	// corrected.
	ign := ignoredOf(st.obj)
	ignoredDrift := ign.differs(desired, res.Body)
	for _, p := range ignoredDrift {
		driftIgnored.WithLabelValues(r.Desc.Kind, p).Inc()
	}
	diff, normalised := splitDrift(st, drift(r.Desc, ign.mask(desired), ign.mask(res.Body)), body)
	if len(diff) > 0 {
		if st.policy.CorrectsDrift() {
			// Drift is measured against status and the last-applied
			// annotation: on a stale copy, the operator's own write looks
			// like Azure's change.
			if stale, err := r.stale(ctx, st); err != nil || stale {
				return reconcile.Result{Requeue: stale}, step(stepStale, err)
			}
			driftCorrections.Inc()
			r.event(st, corev1.EventTypeWarning, core.EventDriftDetected, "Azure differs at "+strings.Join(diff, ", ")+"; correcting")
			base := st.obj.DeepCopy()
			removeAnnotation(st.obj, core.AnnotationLastApplied) // the next reconcile decides against the live body or sends it whole
			removeAnnotation(st.obj, core.AnnotationOperation)
			if err := r.patchMeta(ctx, st, base); err != nil {
				return reconcile.Result{}, step(stepRecord, err)
			}
			r.mem.markCorrected(st.obj.GetUID())
			return reconcile.Result{Requeue: true}, nil
		}
		st.setCondition(true, core.ReasonSucceeded, "Azure differs from spec at "+strings.Join(diff, ", ")+" (policy "+string(st.policy)+": not corrected)")
	}
	// Status is that body, the extra status reads and the kind's Status
	// hook.
	r.statusGETs(ctx, st, id, body)
	if h := r.Hooks.Status; h != nil && body != nil {
		if err := h(st.obj, body); err != nil {
			return r.fail(ctx, st, step("Status hook", err))
		}
	}
	st.setStatusBody(body)
	if st.cond == nil {
		state, _, _ := unstructured.NestedString(res.Body, "properties", "provisioningState")
		switch {
		case state == "" || strings.EqualFold(state, "Succeeded") || strings.EqualFold(state, "Ready"):
			// Ready: SQL's outbound firewall rules end there
			// (test/recordings/Test_SQL_Server_CRUD.yaml).
			var notes []string
			if len(normalised) > 0 {
				notes = append(notes, "ARM answers "+strings.Join(normalised, ", ")+" differently from spec: its normalisation of what was applied, not drift")
			}
			if len(ignoredDrift) > 0 {
				notes = append(notes, ignoredNote(ignoredDrift))
			}
			st.setCondition(true, core.ReasonSucceeded, strings.Join(notes, "; "))
		case strings.EqualFold(state, "Failed") || strings.EqualFold(state, "Canceled"):
			st.userMustAct(core.ReasonFailed, "provisioningState is "+state)
		default:
			st.setCondition(false, core.ReasonReconciling, "provisioningState is "+state)
			if err := r.writeStatus(ctx, st); err != nil {
				return reconcile.Result{}, step(stepStatus, err)
			}
			return reconcile.Result{RequeueAfter: r.Config.PollInterval}, nil
		}
	}
	if err := r.writeStatus(ctx, st); err != nil {
		return reconcile.Result{}, step(stepStatus, err)
	}
	if st.cond != nil && st.cond.Status == metav1.ConditionTrue {
		if err := r.writeOutputs(ctx, st.obj, st.arm.Client, id, body); err != nil {
			return r.fail(ctx, st, step("outputs", err))
		}
	}
	if r.listed(id) {
		return reconcile.Result{}, nil // the drift observer watches it
	}
	return reconcile.Result{RequeueAfter: r.syncPeriod(st)}, nil
}

// statusGETs joins the Descriptor's extra status reads (e.g. a scale
// set's instanceView) into the status body, under the field the generator
// gave them. A failed read leaves the field out.
func (r *Reconciler) statusGETs(ctx context.Context, st *state, id string, body map[string]any) {
	if body == nil {
		return
	}
	for _, g := range r.Desc.StatusGETs {
		if g.StatusField == "" {
			continue
		}
		res, err := r.armCall(ctx, st, http.MethodGet, id+"/"+g.Name, nil)
		if err != nil || res.Body == nil {
			continue
		}
		body[g.StatusField] = res.Body
	}
}

// splitDrift splits drift paths into those Azure changed since the operator
// last looked (drift: corrected) and those where ARM answers what was
// applied in its own way (a Redis redisVersion "6" read back as "6.0.14",
// a value the service fills in): the value the GET right after a write
// returned, still the same as in status. The second kind is never
// corrected: a PUT would get the same answer again, forever.
func splitDrift(st *state, paths []string, live map[string]any) (drifted, normalised []string) {
	for _, p := range paths {
		path, err := descriptor.ParsePath(p)
		switch {
		case st.wrote:
			normalised = append(normalised, p)
		case err == nil && unchangedSince(st.orig, path, live):
			normalised = append(normalised, p)
		default:
			drifted = append(drifted, p)
		}
	}
	return drifted, normalised
}

// syncPeriod is the jittered period of the object.
func (r *Reconciler) syncPeriod(st *state) time.Duration {
	p := r.Config.SyncPeriod
	if v := st.obj.GetAnnotations()[core.AnnotationSyncPeriod]; v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			p = d
		}
	}
	j := 1 + r.Config.Jitter*(2*rand.Float64()-1)
	return time.Duration(float64(p) * j)
}
