package configurator

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// BenchmarkConfigurator registers n Widgets on the in-memory harness (mem:
// the registry's own handlers, index, queue, Select/Render and write code,
// with an in-memory store and client instead of an apiserver — creating
// 10,000 objects in envtest on 2 cores takes about a minute; see
// test/configurator for the same measure against a real apiserver). Every
// Group is tracked by 10 Widgets. One op is: one Group changes (it turns
// Ready or not), and the queue is drained. It reports how many Selects,
// Renders and writes that op caused — 10, 10 and 10 (the dependents'
// status) whatever n — and the time it took (ns/op), plus the time of the
// initial sync of all n.
func BenchmarkConfigurator(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("resources=%d", n), func(b *testing.B) {
			f := newFixture(b, nil)
			groups := n / 10
			for g := range groups {
				f.m.put(group(fmt.Sprintf("g%d", g), false))
			}
			for w := range n {
				f.m.put(widget(fmt.Sprintf("w%d", w), fmt.Sprintf("g%d", w%groups)))
			}
			start := time.Now()
			f.drain()
			initial := time.Since(start)
			if got := f.reg.Stats().Selects; got != int64(n) {
				b.Fatalf("initial sync selected %d of %d", got, n)
			}
			before := f.reg.Stats()
			g0 := ref(groupGVK, "g0")
			for i := 0; b.Loop(); i++ {
				f.m.update(g0, func(u *unstructured.Unstructured) {
					status := "True"
					if i%2 == 1 {
						status = "False"
					}
					u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": status}}}
				})
				f.drain()
			}
			d := f.reg.Stats().Sub(before)
			ops := float64(b.N)
			b.ReportMetric(float64(n), "registered")
			b.ReportMetric(float64(d.Selects)/ops, "selects/op")
			b.ReportMetric(float64(d.Renders)/ops, "renders/op")
			b.ReportMetric(float64(d.Writes())/ops, "writes/op")
			b.ReportMetric(float64(initial.Milliseconds()), "initial-sync-ms")
		})
	}
}
