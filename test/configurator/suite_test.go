package configurator

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/configurator"
	"github.com/armature-dev/armature/test/envtestutil"
)

var (
	cfg    *rest.Config
	cl     client.Client
	scheme = runtime.NewScheme()

	rgGVK     = schema.GroupVersionKind{Group: "resources.azure.armature.dev", Version: "v20240301", Kind: "ResourceGroup"}
	widgetGVK = schema.GroupVersionKind{Group: "test.armature.dev", Version: "v1", Kind: "Widget"}
	cmGVK     = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
)

func TestMain(m *testing.M) {
	logf.SetLogger(logr.Discard())
	env, c, err := envtestutil.Start(
		filepath.Join(envtestutil.RepoRoot(), "generated", "crds"),
		filepath.Join("testdata", "crds"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtest:", err)
		os.Exit(1)
	}
	cfg = c
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, apis.AddToScheme} {
		if err := add(scheme); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if cl, err = envtestutil.Client(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop envtest:", err)
	}
	os.Exit(code)
}

// running is a Registry on its own manager, cache scoped to one namespace,
// whose apiserver writes are counted at the HTTP transport (so the count
// does not trust the registry's own Stats).
type running struct {
	ns     string
	reg    *configurator.Registry
	writes *atomic.Int64
	stop   func() // stops the manager; also at the end of the test
}

type countWrites struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countWrites) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet {
		c.n.Add(1)
	}
	return c.next.RoundTrip(r)
}

// start runs a registry with kinds in ns until the test ends; setup runs
// before the manager starts (more Watch calls).
func start(t testing.TB, ns string, setup func(*configurator.Registry), kinds ...configurator.Kind) *running {
	t.Helper()
	return startWith(t, ns, []configurator.Option{configurator.WithWorkers(2)}, setup, kinds...)
}

// startWith is start with registry options.
func startWith(t testing.TB, ns string, opts []configurator.Option, setup func(*configurator.Registry), kinds ...configurator.Kind) *running {
	t.Helper()
	c := rest.CopyConfig(cfg)
	writes := &atomic.Int64{}
	c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return countWrites{next: rt, n: writes} }
	mgr, err := manager.New(c, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := configurator.SetupWithManager(mgr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(reg)
	}
	for _, k := range kinds {
		if err := reg.Register(k); err != nil {
			t.Fatal(err)
		}
	}
	stop := envtestutil.RunManager(t, mgr)
	return &running{ns: ns, reg: reg, writes: writes, stop: stop}
}

var nsSeq atomic.Int64

// namespace creates a fresh namespace.
func namespace(t testing.TB, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d", prefix, nsSeq.Add(1))
	if err := cl.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// eventually polls cond for up to 30 s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settle waits until the registry's counters and the transport's write
// count have not moved for a second: every event has been handled.
func (r *running) settle(t testing.TB) {
	t.Helper()
	type snap struct {
		s configurator.Stats
		w int64
	}
	take := func() snap { return snap{r.reg.Stats(), r.writes.Load()} }
	last, since := take(), time.Now()
	deadline := time.Now().Add(60 * time.Second)
	for time.Since(since) < time.Second {
		if time.Now().After(deadline) {
			t.Fatal("registry never settled")
		}
		time.Sleep(50 * time.Millisecond)
		if cur := take(); cur != last {
			last, since = cur, time.Now()
		}
	}
}

// counter counts calls per resource name.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) inc(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name]++
}

func (c *counter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

func delta(before, after map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func resourceGroup(ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"location": "westeurope"},
	}}
	u.SetGroupVersionKind(rgGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func widget(ns, name, group string, children ...string) *unstructured.Unstructured {
	cs := make([]any, len(children))
	for i, c := range children {
		cs[i] = c
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"group": group, "children": cs}}}
	u.SetGroupVersionKind(widgetGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func create(t testing.TB, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if err := cl.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
}

// mutate reads, changes and updates an object (status through the status
// subresource when status is true), retrying conflicts.
func mutate(t testing.TB, gvk schema.GroupVersionKind, ns, name string, status bool, f func(u *unstructured.Unstructured)) {
	t.Helper()
	for range 10 {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
			t.Fatal(err)
		}
		f(u)
		var err error
		if status {
			err = cl.Status().Update(context.Background(), u)
		} else {
			err = cl.Update(context.Background(), u)
		}
		if err == nil {
			return
		}
		if !isConflict(err) {
			t.Fatal(err)
		}
	}
	t.Fatalf("update %s/%s: too many conflicts", ns, name)
}

// setReady sets the Ready condition, as the generic reconciler would.
func setReady(t testing.TB, gvk schema.GroupVersionKind, ns, name string, ready bool) {
	t.Helper()
	status, reason := "False", "Reconciling"
	if ready {
		status, reason = "True", "Succeeded"
	}
	mutate(t, gvk, ns, name, true, func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{
			"type": "Ready", "status": status, "reason": reason, "message": "",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}}, "status", "conditions")
	})
}

func isConflict(err error) bool { return apierrors.IsConflict(err) }
