package reconciler_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	armoperator "github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/webhook"
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

// benchOperator starts a manager whose writes are counted; its drift
// observer's first pass runs firstObservation after the start. With wh, it
// serves the admission webhook there, as the deployed operator does.
func benchOperator(b *testing.B, fa *fakearm.Running, ns string, w *writes, firstObservation time.Duration, wh *benchWebhook) func() {
	var server ctrlwebhook.Server
	if wh != nil {
		server = ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: wh.port, CertDir: wh.certDir})
	}
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		WebhookServer: server,
		Scheme:        scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:          cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}, DefaultTransform: reconciler.TransformForCache(true)},
		Client:         client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Controller:     config.Controller{SkipNameValidation: ptr.To(true)}, // as operator.Run
		MapperProvider: armoperator.NewRESTMapper,                           // as operator.Run
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
	cfg := reconciler.Config{SubscriptionID: subscription, SyncPeriod: time.Hour, PollInterval: 50 * time.Millisecond, WorkersPerKind: 16, FirstObservation: firstObservation}
	if err := reconciler.SetupAll(mgr, armClient, apis.Descriptors(), cfg); err != nil {
		b.Fatal(err)
	}
	if wh != nil {
		if err := webhook.Setup(mgr, webhook.New(apis.Descriptors())); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mgr.Start(ctx)
	}()
	if wh != nil {
		wh.wait(b, func() string { return "(in process)" })
	}
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
// under 10 resource groups in 10 subscriptions (ARM's write budget is per
// subscription: 1,000 creates in one take at least 80 s of it, whatever
// the client), against the emulator, the operator in this process. Run
// with
//
//	make bench-reconcile
//
// It reports time to all-Ready, ARM calls and apiserver writes per
// resource, the test process's peak RSS (operator, emulator and bench
// client: BenchmarkScale measures the operator alone), a full no-op
// resync pass (ARM-reads/resource-resync, ARM-writes-resync), and two
// floors without an operator: the same apiserver storing the same data
// with 3 plain writes per object (create, metadata patch, status patch —
// the goal's floor), and 3 writes with a tiny status (what the apiserver
// can do at best). CPU seconds of the apiserver are reported beside the
// wall times: they do not depend on what else the machine runs.
func BenchmarkReconcile(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("ARMATURE_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()

	// The small floor: create + one update + one small status write per
	// object, no operator.
	floorNS := benchNamespace(b, "floor")
	_, floorCPU0 := cpuSeconds()
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
	smallFloor := time.Since(start)
	_, floorCPU1 := cpuSeconds()

	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1, RetryAfter: -1, ReadBudget: 1 << 30, WriteBudget: 1 << 30, DeleteBudget: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	defer fa.Close()
	ns := benchNamespace(b, "bench")
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	// Readiness from a watch that decodes only what it reads (readywatch):
	// the harness must not compete with the operator for CPU.
	watcher, err := watchReady(wctx, restCfg, "/apis/"+storageAPI+"/namespaces/"+ns+"/storageaccounts")
	if err != nil {
		b.Fatal(err)
	}
	w := &writes{}
	var wh *benchWebhook
	if os.Getenv("ARMATURE_BENCH_WEBHOOK") != "0" {
		installed := installWebhook(b, b.TempDir(), ns)
		wh = &installed
	}
	stop := benchOperator(b, fa, ns, w, time.Hour, wh)
	b.ResetTimer()
	start = time.Now()
	selfCPU0, apiCPU0 := cpuSeconds()
	req0 := apiserverRequests(b)
	for g := 0; g < 10; g++ {
		rg := resourceGroup(ns, fmt.Sprintf("rg%d", g))
		_ = unstructured.SetNestedField(rg.Object, map[string]any{"armId": fmt.Sprintf("/subscriptions/00000000-0000-0000-0000-%012d", g)}, "spec", "owner")
		if err := k8s.Create(ctx, rg); err != nil {
			b.Fatal(err)
		}
	}
	if err := parallel(n, func(i int) error {
		return k8s.Create(ctx, storageAccount(ns, fmt.Sprintf("sa%04d", i), fmt.Sprintf("rg%d", i%10)))
	}); err != nil {
		b.Fatal(err)
	}
	for {
		ready, err := watcher.count()
		if err != nil {
			b.Fatal(err)
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
	selfCPU1, apiCPU1 := cpuSeconds()
	req1 := apiserverRequests(b)
	for _, k := range slices.Sorted(maps.Keys(req1)) {
		if d := req1[k] - req0[k]; d > 0 {
			b.Logf("apiserver requests during the converge: %-22s %6.0f  (%.2f per resource)", k, d, d/float64(n))
		}
	}
	b.StopTimer()
	sample := storageAccount(ns, "sa0000", "rg0")
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(sample), sample); err != nil {
		b.Fatal(err)
	}
	sizes := []string{}
	for _, part := range []string{"metadata", "spec", "status"} {
		raw, _ := json.Marshal(sample.Object[part])
		sizes = append(sizes, fmt.Sprintf("%s %d B", part, len(raw)))
	}
	b.Logf("one converged StorageAccount: %s", strings.Join(sizes, ", "))
	b.Logf("its annotations: %v", sample.GetAnnotations())
	saCalls := 0
	for _, e := range fa.Journal() {
		if strings.Contains(e.Path, "/storageAccounts/") || strings.Contains(e.Path, "/asyncoperations/") {
			saCalls++
		}
	}
	opWrites := w.n.Load()
	stop()

	// The floor: the same apiserver storing the same data with the same
	// number of writes and no operator: create the same spec, one metadata
	// patch (the converged object's finalizer and annotations), one status
	// patch (its status).
	converged := &unstructured.UnstructuredList{}
	converged.SetAPIVersion(storageAPI)
	converged.SetKind("StorageAccountList")
	if err := k8s.List(ctx, converged, client.InNamespace(ns)); err != nil {
		b.Fatal(err)
	}
	sameNS := benchNamespace(b, "floor-same")
	_, sameCPU0 := cpuSeconds()
	start = time.Now()
	if err := parallel(len(converged.Items), func(i int) error {
		src := &converged.Items[i]
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": storageAPI, "kind": "StorageAccount",
			"metadata": map[string]any{"name": src.GetName(), "namespace": sameNS}, "spec": src.Object["spec"]}}
		if err := k8s.Create(ctx, o); err != nil {
			return err
		}
		meta := map[string]any{"metadata": map[string]any{"finalizers": src.GetFinalizers(), "annotations": src.GetAnnotations()}}
		if err := k8s.Patch(ctx, o, client.RawPatch(types.MergePatchType, mustMarshal(meta))); err != nil {
			return err
		}
		return k8s.Status().Patch(ctx, o, client.RawPatch(types.MergePatchType, mustMarshal(map[string]any{"status": src.Object["status"]})))
	}); err != nil {
		b.Fatal(err)
	}
	floor := time.Since(start)
	_, sameCPU1 := cpuSeconds()

	// A full no-op resync pass: a fresh operator observes what it watches
	// once (the drift observer's first pass); nothing needs writing.
	fa.ResetJournal()
	w2 := &writes{}
	stop2 := benchOperator(b, fa, ns, w2, 2*time.Second, nil)
	waitResyncPass(fa, 10, 5*time.Minute)
	stop2()
	resyncReads := fa.Count(http.MethodGet)
	resyncWrites := fa.Count(http.MethodPut) + fa.Count(http.MethodPatch) + fa.Count(http.MethodDelete) + fa.Count(http.MethodPost)
	if l := listedGroups(fa); l < 10 {
		b.Errorf("the resync pass listed %d of 10 groups' storage accounts", l)
	}

	b.ReportMetric(float64(n), "resources")
	b.ReportMetric(converge.Seconds(), "s-to-all-Ready")
	b.ReportMetric(floor.Seconds(), "s-floor-same-data")
	b.ReportMetric(converge.Seconds()/floor.Seconds(), "ratio-to-floor")
	b.ReportMetric(smallFloor.Seconds(), "s-floor-small-status")
	b.ReportMetric(converge.Seconds()/smallFloor.Seconds(), "ratio-to-small-floor")
	// CPU seconds do not depend on what else runs on the machine: the
	// apiserver's CPU for the converge against its CPU for the floor.
	b.ReportMetric(sameCPU1-sameCPU0, "apiserver-CPU-s-floor")
	b.ReportMetric(floorCPU1-floorCPU0, "apiserver-CPU-s-small-floor")
	b.ReportMetric(apiCPU1-apiCPU0, "apiserver-CPU-s-converge")
	b.ReportMetric(selfCPU1-selfCPU0, "operator+emulator+bench-CPU-s-converge")
	b.ReportMetric(float64(saCalls)/float64(n), "ARM-calls/resource")
	b.ReportMetric(float64(opWrites)/float64(n+10), "apiserver-writes/resource")
	b.ReportMetric(peakRSS(), "test-process-RSS-MiB")
	b.ReportMetric(float64(resyncReads)/float64(n), "ARM-reads/resource-resync")
	b.ReportMetric(float64(resyncWrites), "ARM-writes-resync")
	b.ReportMetric(float64(w2.n.Load()), "resync-apiserver-writes")
}

func benchNamespace(b *testing.B, prefix string) string {
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"generateName": prefix + "-"}}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		b.Fatal(err)
	}
	return ns.GetName()
}

// peakRSS is this process's peak resident memory in MiB.
func peakRSS() float64 { return vmHWM("/proc/self/status") }

// cpuSeconds is the CPU time (user + system) used so far by this process
// and by the kube-apiserver serving restCfg, read from /proc. CPU time,
// unlike wall time, does not depend on what else the machine is running.
func cpuSeconds() (self, apiserver float64) {
	self = procCPU("/proc/self/stat")
	port := strings.TrimSuffix(restCfg.Host[strings.LastIndex(restCfg.Host, ":")+1:], "/")
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmd), "kube-apiserver") || !strings.Contains(string(cmd), "--secure-port="+port) {
			continue
		}
		apiserver = procCPU("/proc/" + d.Name() + "/stat")
	}
	return self, apiserver
}

// procCPU reads utime+stime of a /proc/<pid>/stat file, in seconds
// (USER_HZ is 100 on Linux).
func procCPU(path string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndex(s, ")")+2:])
	if len(fields) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(fields[11], 64)
	k, _ := strconv.ParseFloat(fields[12], 64)
	return (u + k) / 100
}

// apiserverRequests reads the apiserver's own request counters
// (apiserver_request_total), summed by verb ("GET", "PATCH", "POST"
// …, with "events/" in front for Event writes), for the custom
// resources' group and Events only.
func apiserverRequests(b testing.TB) map[string]float64 {
	hc, err := rest.HTTPClientFor(restCfg)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := hc.Get(strings.TrimSuffix(restCfg.Host, "/") + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	s := bufio.NewScanner(resp.Body)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := s.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		labels := line[strings.Index(line, "{")+1 : strings.LastIndex(line, "}")]
		get := func(k string) string {
			i := strings.Index(labels, k+`="`)
			if i < 0 {
				return ""
			}
			rest := labels[i+len(k)+2:]
			return rest[:strings.Index(rest, `"`)]
		}
		v, _ := strconv.ParseFloat(strings.TrimSpace(line[strings.LastIndex(line, " ")+1:]), 64)
		switch {
		case get("group") == "storage.azure.armature.dev" || get("group") == "resources.azure.armature.dev":
			key := get("verb")
			if sub := get("subresource"); sub != "" {
				key += " " + sub
			}
			out[key] += v
		case get("resource") == "events":
			out["events/"+get("verb")] += v
		}
	}
	return out
}

func mustMarshal(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return raw
}
