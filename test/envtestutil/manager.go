package envtestutil

import (
	"bytes"
	"context"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// RunManager starts mgr until the test ends and returns the function that
// stops it (also called by the test's cleanup; calling it twice is fine).
// A manager that fails, or does not stop within its grace period, fails
// the test; in the second case the error names the goroutines of the
// project and of controller-runtime still running, which is where a
// runnable that ignores its context shows.
func RunManager(t testing.TB, mgr manager.Manager) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			if strings.Contains(err.Error(), "grace period") {
				t.Errorf("manager: %v\ngoroutines still running:\n%s", err, Stuck())
				return
			}
			t.Errorf("manager: %v", err)
		}
	})
	t.Cleanup(stop)
	return stop
}

// Stuck is the stacks of the running goroutines that are in the project's
// code or in controller-runtime's, grouped by identical stack (pprof's
// debug=1 form, which counts them).
func Stuck() string {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
	var out []string
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(g, "armature-dev/armature/") && !strings.Contains(g, "envtestutil.Stuck") ||
			strings.Contains(g, "controller-runtime/pkg/internal/controller") ||
			strings.Contains(g, "controller-runtime/pkg/manager") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
