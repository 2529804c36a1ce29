package reconciler

import (
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/metrics"
)

var (
	armRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_arm_requests_total", Help: "ARM requests sent by the reconciler, by verb and outcome code.",
	}, []string{"verb", "code"})
	timeToReady = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "armature_time_to_ready_seconds", Help: "Time from creation of a custom resource to its first Ready=True.",
		Buckets: prometheus.ExponentialBuckets(0.5, 2, 12),
	}, []string{"kind"})
	driftCorrections = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "armature_drift_corrections_total", Help: "Times Azure was found to differ from spec and was corrected.",
	})
	armErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_arm_errors_total", Help: "ARM errors a reconcile ended on, by ARM error code and class of runtime/arm's error table (retry, object-change, world-change, name-taken).",
	}, []string{"code", "class"})
	driftIgnored = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_drift_ignored_total", Help: "Times Azure was found to differ from spec at a path of spec.operatorSpec.ignoreChanges (not corrected), by kind and ignored path.",
	}, []string{"kind", "path"})
	createOnlyRefusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_create_only_refusals_total", Help: "Writes Azure refused because they changed a property it sets only at create, by kind and property path (from the body root; several joined by commas when ARM named none and the write changed several).",
	}, []string{"kind", "path"})
	inflight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "armature_inflight_operations", Help: "Long-running ARM operations this operator is polling.",
	})
	observerPasses = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_drift_observer_passes_total", Help: "Passes of the drift observer (one LIST per collection of settled resources), by kind.",
	}, []string{"kind"})
	observerRequeues = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_drift_observer_requeues_total", Help: "Resources the drift observer sent to a GET because their listed body changed or was missing, by kind.",
	}, []string{"kind"})
)

// RegisterMetrics registers the reconciler's metrics (armature_arm_requests_total,
// armature_time_to_ready_seconds, armature_drift_*, armature_arm_errors_total,
// armature_create_only_refusals_total, armature_inflight_operations) with r.
// The composition that serves them calls it (operator.Run, with
// controller-runtime's metrics.Registry); importing the package registers
// nothing. Unregistered, the metrics still count but are not served.
// Registering the same metrics with r again is not an error, so an
// operator restarted in one process (tests) calls it each time.
func RegisterMetrics(r prometheus.Registerer) error {
	return metrics.Register(r, armRequests, timeToReady, driftCorrections, armErrors, createOnlyRefusals, driftIgnored, inflight, observerPasses, observerRequeues)
}

func observeARM(verb string, err error) {
	code := "ok"
	var ae *arm.Error
	switch {
	case errors.As(err, &ae):
		code = strconv.Itoa(ae.Status)
	case err != nil:
		code = "error"
	}
	armRequests.WithLabelValues(verb, code).Inc()
}

func observeReady(obj *unstructured.Unstructured) {
	timeToReady.WithLabelValues(obj.GetKind()).Observe(time.Since(obj.GetCreationTimestamp().Time).Seconds())
}
