package envtestutil

import (
	"bytes"
	"context"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/armature-dev/armature/runtime/reconciler"
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

// NewManager is the manager the operator's tests run: it caches ns only
// (as --watch-namespaces does), slims cached objects as the operator does
// (reconciler.TransformForCache), reads unstructured objects from the
// cache, serves no metrics or probes, and lets controllers of one name be
// made again (each test makes its own).
func NewManager(t testing.TB, cfg *rest.Config, scheme *runtime.Scheme, ns string) manager.Manager {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}, DefaultTransform: reconciler.TransformForCache(true)},
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}
