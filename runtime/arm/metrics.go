package arm

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/armature-dev/armature/runtime/metrics"
)

var (
	budgetTokens = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "armature_arm_budget_tokens", Help: "Tokens left in the client-side ARM budget, by subscription and operation type (reads, writes, deletes).",
	}, []string{"subscription", "op"})
	budgetWaits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_arm_budget_waits_total", Help: "Requests that waited for the ARM budget, by operation type and priority.",
	}, []string{"op", "priority"})
	budgetWaitSeconds = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_arm_budget_wait_seconds_total", Help: "Time requests waited for the ARM budget, by operation type and priority.",
	}, []string{"op", "priority"})
	throttled = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_arm_throttled_total", Help: "429 answers from ARM, by operation type; each pauses that budget for its Retry-After.",
	}, []string{"op"})
)

// RegisterMetrics registers the ARM budget's metrics (armature_arm_budget_*,
// armature_arm_throttled_total) with r. The composition that serves them
// calls it (operator.Run, with controller-runtime's metrics.Registry);
// importing the package registers nothing. Unregistered, the metrics
// still count but are not served. Registering them with r again is not an
// error.
func RegisterMetrics(r prometheus.Registerer) error {
	return metrics.Register(r, budgetTokens, budgetWaits, budgetWaitSeconds, throttled)
}
