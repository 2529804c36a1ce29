package configurator

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/armature-dev/armature/runtime/metrics"
)

// Stats counts what a Registry did since it was created.
type Stats struct {
	// Selects is how many times a Select ran.
	Selects int64
	// Renders is how many times a Render ran.
	Renders int64
	// StatusWrites is how many status patches were sent.
	StatusWrites int64
	// Applies is how many server-side applies of declared resources were sent.
	Applies int64
	// Deletes is how many deletes of no longer declared resources were sent.
	Deletes int64
	// AnnotationWrites is how many patches of the rendered-resources
	// annotation were sent.
	AnnotationWrites int64
	// Errors is how many Select/Render/write runs failed.
	Errors int64
}

// Writes is the number of apiserver writes: status patches, applies,
// deletes and annotation patches.
func (s Stats) Writes() int64 { return s.StatusWrites + s.Applies + s.Deletes + s.AnnotationWrites }

// Sub is s minus t, to count what happened between two snapshots.
func (s Stats) Sub(t Stats) Stats {
	return Stats{
		Selects: s.Selects - t.Selects, Renders: s.Renders - t.Renders,
		StatusWrites: s.StatusWrites - t.StatusWrites, Applies: s.Applies - t.Applies,
		Deletes: s.Deletes - t.Deletes, AnnotationWrites: s.AnnotationWrites - t.AnnotationWrites,
		Errors: s.Errors - t.Errors,
	}
}

type counters struct {
	selects, renders, status, applies, deletes, annotations, errors atomic.Int64
}

// Stats returns the counters.
func (r *Registry) Stats() Stats {
	c := &r.stats
	return Stats{
		Selects: c.selects.Load(), Renders: c.renders.Load(), StatusWrites: c.status.Load(),
		Applies: c.applies.Load(), Deletes: c.deletes.Load(), AnnotationWrites: c.annotations.Load(),
		Errors: c.errors.Load(),
	}
}

// Write verbs of the writes_total metric.
const (
	verbStatus   = "status"
	verbApply    = "apply"
	verbDelete   = "delete"
	verbAnnotate = "annotate"
)

var (
	selectsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_configurator_selects_total", Help: "Select runs, by rendered kind.",
	}, []string{"kind"})
	rendersTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_configurator_renders_total", Help: "Render runs, by rendered kind.",
	}, []string{"kind"})
	writesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "armature_configurator_writes_total", Help: "Apiserver writes, by rendered kind and verb (status, apply, delete, annotate).",
	}, []string{"kind", "verb"})
)

// RegisterMetrics registers the configurator's metrics
// (armature_configurator_*) with r. The composition that serves them calls
// it (operator.Run, with controller-runtime's metrics.Registry); importing
// the package registers nothing. Unregistered, the metrics still count but
// are not served. Registering them with r again is not an error.
func RegisterMetrics(r prometheus.Registerer) error {
	return metrics.Register(r, selectsTotal, rendersTotal, writesTotal)
}

func (r *Registry) countWrite(ref Ref, verb string) {
	switch verb {
	case verbStatus:
		r.stats.status.Add(1)
	case verbApply:
		r.stats.applies.Add(1)
	case verbDelete:
		r.stats.deletes.Add(1)
	case verbAnnotate:
		r.stats.annotations.Add(1)
	}
	writesTotal.WithLabelValues(kindKey(ref.GroupVersionKind), verb).Inc()
}
