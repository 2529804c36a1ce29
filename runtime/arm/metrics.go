package arm

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
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

func init() {
	metrics.Registry.MustRegister(budgetTokens, budgetWaits, budgetWaitSeconds, throttled)
}
