package reconciler_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// writes counts the operator's apiserver writes.
type writes struct{ n atomic.Int64 }

type countingClient struct {
	client.Client
	w *writes
}

func (c countingClient) Create(ctx context.Context, o client.Object, opts ...client.CreateOption) error {
	c.w.n.Add(1)
	return c.Client.Create(ctx, o, opts...)
}
func (c countingClient) Update(ctx context.Context, o client.Object, opts ...client.UpdateOption) error {
	c.w.n.Add(1)
	return c.Client.Update(ctx, o, opts...)
}
func (c countingClient) Patch(ctx context.Context, o client.Object, p client.Patch, opts ...client.PatchOption) error {
	c.w.n.Add(1)
	return c.Client.Patch(ctx, o, p, opts...)
}
func (c countingClient) Delete(ctx context.Context, o client.Object, opts ...client.DeleteOption) error {
	c.w.n.Add(1)
	return c.Client.Delete(ctx, o, opts...)
}
func (c countingClient) Status() client.SubResourceWriter {
	return countingStatus{SubResourceWriter: c.Client.Status(), w: c.w}
}

type countingStatus struct {
	client.SubResourceWriter
	w *writes
}

func (c countingStatus) Patch(ctx context.Context, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
	c.w.n.Add(1)
	return c.SubResourceWriter.Patch(ctx, o, p, opts...)
}
func (c countingStatus) Update(ctx context.Context, o client.Object, opts ...client.SubResourceUpdateOption) error {
	c.w.n.Add(1)
	return c.SubResourceWriter.Update(ctx, o, opts...)
}

// benchOperator starts a manager whose writes are counted.
func benchOperator(b *testing.B, fa *fakearm.Running, ns string, w *writes) func() {
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Client:     client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Controller: config.Controller{SkipNameValidation: ptr.To(true), UsePriorityQueue: ptr.To(true)},
		NewClient: func(cfg *rest.Config, opts client.Options) (client.Client, error) {
			c, err := client.New(cfg, opts)
			return countingClient{Client: c, w: w}, err
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	armClient, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("b"), Transport: fa.HTTPClient()})
	if err != nil {
		b.Fatal(err)
	}
	cfg := reconciler.Config{SubscriptionID: subscription, SyncPeriod: time.Hour, PollInterval: 50 * time.Millisecond, WorkersPerKind: 16}
	if err := reconciler.SetupAll(mgr, armClient, apis.Descriptors(), cfg); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mgr.Start(ctx)
	}()
	return func() { cancel(); <-done }
}

// parallel runs f for 0..n-1 on 8 goroutines.
func parallel(n int, f func(i int) error) error {
	var wg sync.WaitGroup
	var first atomic.Value
	next := atomic.Int64{}
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					first.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := first.Load().(error); err != nil {
		return err
	}
	return nil
}

// BenchmarkReconcile: N StorageAccounts (ARMATURE_BENCH_N, default 1000)
// under 10 resource groups, against the emulator. Run with
//
//	make bench-reconcile
//
// It reports time to all-Ready, ARM calls and apiserver writes per
// resource, the operator's peak RSS, a full no-op resync pass, and the
// floor: the same apiserver doing 3 plain writes per object.
func BenchmarkReconcile(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("ARMATURE_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()

	// The floor: create + one update + one status write per object, no operator.
	floorNS := benchNamespace(b, "floor")
	start := time.Now()
	if err := parallel(n, func(i int) error {
		o := storageAccount(floorNS, fmt.Sprintf("f%04d", i), "rg")
		if err := k8s.Create(ctx, o); err != nil {
			return err
		}
		_ = unstructured.SetNestedField(o.Object, "Cool", "spec", "properties", "accessTier")
		if err := k8s.Update(ctx, o); err != nil {
			return err
		}
		o.Object["status"] = map[string]any{"id": "/x", "observedGeneration": int64(1)}
		return k8s.Status().Update(ctx, o)
	}); err != nil {
		b.Fatal(err)
	}
	floor := time.Since(start)

	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1, RetryAfter: -1, ReadBudget: 1 << 30, WriteBudget: 1 << 30, DeleteBudget: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	defer fa.Close()
	ns := benchNamespace(b, "bench")
	watcher, err := cache.New(restCfg, cache.Options{Scheme: scheme, DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		b.Fatal(err)
	}
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	go func() { _ = watcher.Start(wctx) }()
	w := &writes{}
	stop := benchOperator(b, fa, ns, w)
	b.ResetTimer()
	start = time.Now()
	for g := 0; g < 10; g++ {
		if err := k8s.Create(ctx, resourceGroup(ns, fmt.Sprintf("rg%d", g))); err != nil {
			b.Fatal(err)
		}
	}
	if err := parallel(n, func(i int) error {
		return k8s.Create(ctx, storageAccount(ns, fmt.Sprintf("sa%04d", i), fmt.Sprintf("rg%d", i%10)))
	}); err != nil {
		b.Fatal(err)
	}
	// Readiness is watched through an informer: listing 1,000 objects
	// every few hundred milliseconds would load the apiserver more than
	// the operator does.
	for {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(storageAPI)
		list.SetKind("StorageAccountList")
		if err := watcher.List(ctx, list, client.InNamespace(ns)); err != nil {
			b.Fatal(err)
		}
		ready := 0
		for i := range list.Items {
			if s, _, _ := readyReason(&list.Items[i]); s == "True" {
				ready++
			}
		}
		if ready == n {
			break
		}
		if time.Since(start) > 10*time.Minute {
			b.Fatalf("only %d of %d Ready after 10 minutes", ready, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	converge := time.Since(start)
	b.StopTimer()
	saCalls := 0
	for _, e := range fa.Journal() {
		if strings.Contains(e.Path, "/storageAccounts/") || strings.Contains(e.Path, "/asyncoperations/") {
			saCalls++
		}
	}
	opWrites := w.n.Load()
	stop()

	// A full no-op resync pass: a fresh operator reads every resource once.
	fa.ResetJournal()
	w2 := &writes{}
	stop2 := benchOperator(b, fa, ns, w2)
	deadline := time.Now().Add(5 * time.Minute)
	for fa.Count(http.MethodGet) < int64(n+10) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	stop2()
	resyncWrites := fa.Count(http.MethodPut) + fa.Count(http.MethodPatch) + fa.Count(http.MethodDelete)

	b.ReportMetric(float64(n), "resources")
	b.ReportMetric(converge.Seconds(), "s-to-all-Ready")
	b.ReportMetric(floor.Seconds(), "s-floor-3-writes/obj")
	b.ReportMetric(converge.Seconds()/floor.Seconds(), "ratio-to-floor")
	b.ReportMetric(float64(saCalls)/float64(n), "ARM-calls/resource")
	b.ReportMetric(float64(opWrites)/float64(n+10), "apiserver-writes/resource")
	b.ReportMetric(peakRSS(), "peak-RSS-MiB")
	b.ReportMetric(float64(fa.Count(http.MethodGet)), "resync-ARM-GETs")
	b.ReportMetric(float64(resyncWrites), "resync-ARM-writes")
	b.ReportMetric(float64(w2.n.Load()), "resync-apiserver-writes")
}

func benchNamespace(b *testing.B, prefix string) string {
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"generateName": prefix + "-"}}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		b.Fatal(err)
	}
	return ns.GetName()
}

func peakRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}
