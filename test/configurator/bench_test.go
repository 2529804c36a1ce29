package configurator

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/armature-dev/armature/runtime/configurator"
)

// BenchmarkConfiguratorAPIServer is BenchmarkConfigurator of
// runtime/configurator against a real apiserver: n Widgets (no children)
// over n/10 ResourceGroups, each group tracked by 10 Widgets, all created
// in envtest. One op: group g0's Ready condition flips, and the op ends when
// its 10 dependents have written their new status. It reports Selects,
// Renders and apiserver writes per op — 10 each whatever n — the time per
// op, and how long the initial sync of all n took.
func BenchmarkConfiguratorAPIServer(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("resources=%d", n), func(b *testing.B) {
			ns := namespace(b, "bench")
			groups := n / 10
			parallel(b, groups, func(i int) error {
				return cl.Create(context.Background(), resourceGroup(ns, fmt.Sprintf("g%d", i)))
			})
			parallel(b, n, func(i int) error {
				return cl.Create(context.Background(), widget(ns, fmt.Sprintf("w%d", i), fmt.Sprintf("g%d", i%groups)))
			})

			w := &widgets{}
			began := time.Now()
			run := startWith(b, ns, []configurator.Option{configurator.WithWorkers(4)},
				func(r *configurator.Registry) { _ = r.Watch(rgGVK, nil) }, w.kind())
			eventuallyLong(b, "the initial sync", func() bool { return run.reg.Stats().StatusWrites >= int64(n) })
			initial := time.Since(began)
			run.settle(b)

			before := run.reg.Stats()
			i := 0
			for b.Loop() {
				i++
				setReady(b, rgGVK, ns, "g0", i%2 == 1)
				eventuallyLong(b, "the dependents' status", func() bool {
					return run.reg.Stats().Sub(before).StatusWrites >= int64(10*i)
				})
			}
			b.StopTimer()
			run.settle(b)
			d := run.reg.Stats().Sub(before)
			ops := float64(i)
			b.ReportMetric(float64(n), "registered")
			b.ReportMetric(float64(d.Selects)/ops, "selects/op")
			b.ReportMetric(float64(d.Renders)/ops, "renders/op")
			b.ReportMetric(float64(d.Writes())/ops, "writes/op")
			b.ReportMetric(initial.Seconds(), "initial-sync-s")
		})
	}
}

// parallel runs f(0..n-1) on 16 goroutines and fails on the first error.
func parallel(b *testing.B, n int, f func(i int) error) {
	b.Helper()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	next := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if first != nil {
		b.Fatal(first)
	}
}

func eventuallyLong(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
