package reconciler_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/test/envtestutil"
	"github.com/armature-dev/armature/webhook"
)

// envInt reads a positive integer from the environment.
func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
		return v
	}
	return def
}

// operatorProcess is cmd/operator running as its own process, so its
// memory is its own.
type operatorProcess struct {
	cmd *exec.Cmd
	log string
}

// buildOperator builds cmd/operator once into dir.
func buildOperator(b *testing.B, dir string) string {
	bin := filepath.Join(dir, "operator")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/operator")
	cmd.Dir = envtestutil.RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build cmd/operator: %v\n%s", err, out)
	}
	return bin
}

// startOperatorProcess runs the operator binary against the test
// apiserver and the emulator, watching ns.
func startOperatorProcess(b *testing.B, bin, dir string, fa *fakearm.Running, ns string, extra ...string) *operatorProcess {
	kc := filepath.Join(dir, "kubeconfig")
	ca := filepath.Join(dir, "arm-ca.pem")
	if err := os.WriteFile(kc, kubeconfig, 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
		b.Fatal(err)
	}
	logf := filepath.Join(dir, fmt.Sprintf("operator-%d.log", time.Now().UnixNano()))
	out, err := os.Create(logf)
	if err != nil {
		b.Fatal(err)
	}
	// One state key for the bench's operators (a deployed operator keeps
	// it in its namespace), so that a restarted one knows their records.
	key := "--state-key-secret=default/armature-bench-state-key"
	scope := []string{key, "--watch-namespaces", ns, "--default-credential-namespaces", ns}
	if ns == "" {
		// Every namespace, as a cluster-wide install.
		scope = []string{key, "--default-credential-namespaces", "*"}
	}
	if os.Getenv("ARMATURE_BENCH_LEGACY_FLAGS") != "" {
		// A binary from before --default-credential-namespaces (a
		// before/after measurement with ARMATURE_BENCH_OPERATOR_BIN).
		scope = scope[1 : len(scope)-2]
	}
	args := append(append(scope,
		"--arm-endpoint", fa.URL, "--arm-ca-file", ca, "--arm-token", "bench",
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0",
		"--sync-period", "1h", "--poll-interval", "200ms", "--workers-per-kind", "16",
		"--zap-log-level", envOr("ARMATURE_BENCH_LOG_LEVEL", "error"),
	), extra...)
	cmd := exec.Command(bin, args...)
	// GOMEMLIMIT and GOGC as config/manager sets them (the container's
	// memory request; 50),
	// for the operator only: the apiserver of the floor runs without it.
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kc, "GOMEMLIMIT="+envOr("ARMATURE_BENCH_GOMEMLIMIT", "256MiB"), "GOGC="+envOr("ARMATURE_BENCH_GOGC", "50"))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &operatorProcess{cmd: cmd, log: logf}
	b.Cleanup(p.stop)
	return p
}

// peakRSS is the process's peak resident memory (VmHWM) in MiB.
func (p *operatorProcess) peakRSS() float64 {
	if p.cmd.Process == nil {
		return 0
	}
	return vmHWM(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
}

// progress prints, every 15 s on stderr, how far the converge is and who
// uses the CPU.
type progress struct {
	op                          *operatorProcess
	start, last                 time.Time
	apiCPU, opCPU, selfCPU, rss float64
	// peakHeap, when set, is called when the operator's peak RSS grew.
	peakHeap func()
}

func newProgress(op *operatorProcess) *progress {
	self, api := cpuSeconds()
	now := time.Now()
	return &progress{op: op, start: now, last: now, apiCPU: api, opCPU: op.cpuSeconds(), selfCPU: self}
}

func (p *progress) show(created, ready, n int) {
	if time.Since(p.last) < 15*time.Second {
		return
	}
	self, api := cpuSeconds()
	opCPU := p.op.cpuSeconds()
	d := time.Since(p.last).Seconds()
	fmt.Fprintf(os.Stderr, "bench-scale: %4.0fs  created %5d/%d  Ready %5d/%d  CPU apiserver %3.0f%% operator %3.0f%% emulator+bench %3.0f%%  operator RSS %.0f MiB\n",
		time.Since(p.start).Seconds(), created, n, ready, n, 100*(api-p.apiCPU)/d, 100*(opCPU-p.opCPU)/d, 100*(self-p.selfCPU)/d, p.op.peakRSS())
	p.last, p.apiCPU, p.opCPU, p.selfCPU = time.Now(), api, opCPU, self
	if rss := p.op.peakRSS(); rss > p.rss {
		p.rss = rss
		if p.peakHeap != nil {
			p.peakHeap()
		}
	}
}

// cpuSeconds is the process's CPU time so far.
func (p *operatorProcess) cpuSeconds() float64 {
	if p.cmd.Process == nil {
		return 0
	}
	return procCPU(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
}

// rssParts is the process's resident memory now, anonymous (the Go heap,
// stacks) and file-backed (the binary's pages), in MiB.
func (p *operatorProcess) rssParts() (anon, file float64) {
	if p.cmd.Process == nil {
		return 0, 0
	}
	path := fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid)
	return envtestutil.ProcStatusMiB(path, "RssAnon:"), envtestutil.ProcStatusMiB(path, "RssFile:")
}

func (p *operatorProcess) stop() { envtestutil.StopProcess(p.cmd) }

// tail is the end of the operator's log, for failures.
func (p *operatorProcess) tail() string { return envtestutil.Tail(p.log) }

func vmHWM(path string) float64 { return envtestutil.ProcStatusMiB(path, "VmHWM:") }

// rss is the process's resident memory now (VmRSS) in MiB.
func (p *operatorProcess) rss() float64 {
	if p.cmd.Process == nil {
		return 0
	}
	return envtestutil.ProcStatusMiB(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid), "VmRSS:")
}

// BenchmarkScale: N StorageAccounts (ARMATURE_BENCH_N, default 10,000)
// under 100 resource groups spread over S subscriptions
// (ARMATURE_BENCH_SUBS, default 10), reconciled by cmd/operator running as
// its own process, against the emulator enforcing ARM's published
// per-subscription limits (reads 250 refilled at 25/s, writes 200 at
// 10/s). Run with
//
//	make bench-scale
//
// It reports, on the BenchmarkScale line: ratio-to-floor (time to
// all-Ready against the same apiserver storing the same data with 3 plain
// writes per object, measured in the same run), operator-RSS-MiB (the
// operator process's peak), ARM-reads/resource-resync (ARM reads of one
// full no-op resync pass of a freshly started operator, divided by N),
// ARM-writes-resync, apiserver-writes/resource (the operator's), and
// ARM-429 (throttled answers during the converge).
func BenchmarkScale(b *testing.B) {
	n := envInt("ARMATURE_BENCH_N", 10000)
	subs := envInt("ARMATURE_BENCH_SUBS", 10)
	groups := envInt("ARMATURE_BENCH_GROUPS", 100)
	ctx := context.Background()
	dir := b.TempDir()
	bin := buildOperator(b, dir)

	opts := fakearm.Options{LROPolls: 1, RetryAfter: -1, JournalSize: 8*n + 10000}
	opts.ARMLimits()
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: opts})
	if err != nil {
		b.Fatal(err)
	}
	defer fa.Close()
	ns := benchNamespace(b, "scale")
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	watcher, err := watchReady(wctx, restCfg, "/apis/"+storageAPI+"/namespaces/"+ns+"/storageaccounts")
	if err != nil {
		b.Fatal(err)
	}
	var extra []string
	pprofAddr := ""
	if os.Getenv("ARMATURE_BENCH_PPROF") != "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		pprofAddr = l.Addr().String()
		l.Close()
		extra = append(extra, "--pprof-bind-address", pprofAddr)
	}
	withWebhook := os.Getenv("ARMATURE_BENCH_WEBHOOK") != "0"
	var wh benchWebhook
	if withWebhook {
		wh = installWebhook(b, dir, ns)
		extra = append(extra, wh.flags()...)
	}
	op := startOperatorProcess(b, bin, dir, fa, ns, extra...)
	if withWebhook {
		wh.wait(b, op.tail)
	}

	b.ResetTimer()
	start := time.Now()
	if d := os.Getenv("ARMATURE_BENCH_CPUPROFILE"); d != "" && pprofAddr != "" {
		go cpuProfiles(b, d, pprofAddr)
	}
	_, apiCPU0 := cpuSeconds()
	req0 := apiserverRequests(b)
	rgName := func(g int) string { return fmt.Sprintf("rg%03d", g) }
	if err := parallel(groups, func(g int) error {
		rg := resourceGroup(ns, rgName(g))
		_ = unstructured.SetNestedField(rg.Object, map[string]any{"armId": fmt.Sprintf("/subscriptions/00000000-0000-0000-0000-%012d", g%subs)}, "spec", "owner")
		return k8s.Create(ctx, rg)
	}); err != nil {
		b.Fatal(err)
	}
	var created atomic.Int64
	createErr := make(chan error, 1)
	go func() {
		createErr <- parallel(n, func(i int) error {
			defer created.Add(1)
			return k8s.Create(ctx, storageAccount(ns, fmt.Sprintf("sa%05d", i), rgName(i%groups)))
		})
	}()
	progress := newProgress(op)
	if pprofAddr != "" {
		// The heap when the peak RSS grew, for go tool pprof.
		progress.peakHeap = func() {
			saveHeap(pprofAddr, filepath.Join(filepath.Dir(envOr("ARMATURE_BENCH_PPROF", dir+"/x")), "heap-at-peak.pprof"))
		}
	}
	last, lastChange := -1, time.Now()
	for {
		select {
		case err := <-createErr:
			if err != nil {
				b.Fatal(err)
			}
		default:
		}
		ready, err := watcher.count()
		if err != nil {
			b.Fatal(err)
		}
		progress.show(int(created.Load()), ready, n)
		if ready == n {
			break
		}
		if ready != last {
			last, lastChange = ready, time.Now()
		}
		if time.Since(lastChange) > time.Duration(envInt("ARMATURE_BENCH_STALL_SECONDS", 180))*time.Second {
			b.Fatalf("%d of %d Ready, no progress for 3 minutes; operator log:\n%s", ready, n, op.tail())
		}
		time.Sleep(250 * time.Millisecond)
	}
	converge := time.Since(start)
	_, apiCPU1 := cpuSeconds()
	req1 := apiserverRequests(b)
	b.StopTimer()
	rss := op.peakRSS()
	rssAnon, rssFile := op.rssParts()
	heap := ""
	if pprofAddr != "" {
		heap = heapTop(b, dir, bin, pprofAddr)
	}
	throttled := int64(0)
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodPost} {
		throttled += fa.Count(m + " 429")
	}
	armCalls := len(fa.Journal())
	// The operator's apiserver writes: every write of the converge but the
	// bench's own creates.
	writes := 0.0
	for k, v := range req1 {
		verb, _, _ := strings.Cut(k, " ")
		if verb == "PATCH" || verb == "PUT" || verb == "POST" || verb == "DELETE" {
			writes += v - req0[k]
		}
	}
	writes -= float64(n + groups)
	op.stop()

	_, floorCPU0 := cpuSeconds()
	floor := sameDataFloor(b, ns, n)
	_, floorCPU1 := cpuSeconds()

	// One full no-op resync pass: a fresh operator reads what it watches
	// once (the drift observer's first pass); nothing needs writing.
	fa.ResetJournal()
	op2 := startOperatorProcess(b, bin, dir, fa, ns, "--first-observation", "3s")
	waitResyncPass(fa, groups, 5*time.Minute)
	op2.stop()
	if l := listedGroups(fa); l < groups {
		b.Errorf("the resync pass listed %d of %d groups' storage accounts", l, groups)
	}
	resyncReads := fa.Count(http.MethodGet)
	resyncWrites := fa.Count(http.MethodPut) + fa.Count(http.MethodPatch) + fa.Count(http.MethodDelete) + fa.Count(http.MethodPost)
	if resyncReads == 0 {
		b.Errorf("the resync pass read nothing; operator log:\n%s", op2.tail())
	}

	b.Logf("N=%d StorageAccounts under %d groups in %d subscriptions, webhook %v; converge %s, same-data floor %s; apiserver CPU %.1fs (floor %.1fs); operator RSS peak %.0f MiB (anonymous %.0f, file %.0f at the end); ARM calls %d (%.2f per resource); resync: %d reads, %d writes",
		n, groups, subs, withWebhook, converge.Round(time.Millisecond), floor.Round(time.Millisecond), apiCPU1-apiCPU0, floorCPU1-floorCPU0, rss, rssAnon, rssFile, armCalls, float64(armCalls)/float64(n), resyncReads, resyncWrites)
	if heap != "" {
		b.Logf("operator heap after the converge:\n%s", heap)
	}
	b.ReportMetric(float64(n), "resources")
	b.ReportMetric(converge.Seconds(), "s-to-all-Ready")
	b.ReportMetric(floor.Seconds(), "s-floor-same-data")
	b.ReportMetric(converge.Seconds()/floor.Seconds(), "ratio-to-floor")
	// The apiserver's CPU for the converge against its CPU for the floor:
	// unlike wall time, not moved by what else the machine does.
	b.ReportMetric((apiCPU1-apiCPU0)/(floorCPU1-floorCPU0), "apiserver-CPU-ratio")
	b.ReportMetric(rss, "operator-RSS-MiB")
	b.ReportMetric(float64(resyncReads)/float64(n), "ARM-reads/resource-resync")
	b.ReportMetric(float64(resyncWrites), "ARM-writes-resync")
	b.ReportMetric(writes/float64(n+groups), "apiserver-writes/resource")
	b.ReportMetric(float64(throttled), "ARM-429")
}

// benchWebhook is a bench's admission webhook: the configurations of
// every served kind, for one namespace only (the floor's namespace stores
// without them), calling the operator at a loopback port with a
// self-signed certificate. The deployed operator (config/default) serves
// its webhook, and the defaulting webhook adds the finalizer at create.
type benchWebhook struct {
	port    int
	certDir string
}

// installWebhook installs the configurations and writes the certificate.
func installWebhook(b *testing.B, dir, ns string) benchWebhook {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	w := benchWebhook{port: l.Addr().(*net.TCPAddr).Port, certDir: filepath.Join(dir, "webhook-certs-"+ns)}
	l.Close()
	certs, err := webhook.SelfSigned([]string{"127.0.0.1"}, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	if err := webhook.WriteCertDir(w.certDir, certs); err != nil {
		b.Fatal(err)
	}
	opts := []webhook.ConfigOption{webhook.WithURL(fmt.Sprintf("https://127.0.0.1:%d", w.port)), webhook.WithCABundle(certs.CA)}
	only := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	v := webhook.ValidatingWebhookConfiguration(apis.Descriptors(), opts...)
	for i := range v.Webhooks {
		v.Webhooks[i].NamespaceSelector = only
	}
	m := webhook.MutatingWebhookConfiguration(apis.Descriptors(), opts...)
	for i := range m.Webhooks {
		m.Webhooks[i].NamespaceSelector = only
	}
	v.SetName("bench-" + ns)
	m.SetName("bench-" + ns)
	for _, o := range []client.Object{v, m} {
		o.SetResourceVersion("")
		if err := k8s.Create(context.Background(), o); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = k8s.Delete(context.Background(), o) })
	}
	return w
}

// flags are cmd/operator's flags that serve the webhook.
func (w benchWebhook) flags() []string {
	return []string{"--webhook", "--webhook-port", strconv.Itoa(w.port), "--cert-dir", w.certDir}
}

// wait waits until the webhook server answers TLS; log tells what ran.
func (w benchWebhook) wait(b *testing.B, log func() string) {
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", w.port), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a liveness probe of our own server
		if err == nil {
			_ = c.Close()
			return
		}
	}
	b.Fatalf("the operator's webhook did not answer within 60s:\n%s", log())
}

// listedGroups is how many resource groups' storage accounts the journal
// shows listed.
func listedGroups(fa *fakearm.Running) int {
	seen := map[string]bool{}
	for _, e := range fa.Journal() {
		if e.Method == http.MethodGet && strings.HasSuffix(strings.ToLower(e.Path), "/storageaccounts") {
			seen[strings.ToLower(e.Path)] = true
		}
	}
	return len(seen)
}

// waitResyncPass waits until a fresh operator's first drift-observer pass
// is whole: every group's collection listed (the observer starts before
// the informer holds every object, and lists a group once its objects
// are there) and the GETs it asked for done (5 s without a read), or
// until the timeout.
func waitResyncPass(fa *fakearm.Running, groups int, timeout time.Duration) {
	quiet, seen := time.Now(), int64(0)
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if c := fa.Count(http.MethodGet); c != seen {
			seen, quiet = c, time.Now()
		}
		if seen > 0 && time.Since(quiet) > 5*time.Second && listedGroups(fa) >= groups {
			return
		}
	}
}

// sameDataFloor stores the converged objects of ns again in a new
// namespace with 3 plain writes each (create the same spec, one metadata
// patch with the converged finalizer and annotations, one status patch)
// and no operator, and returns how long that took.
func sameDataFloor(b *testing.B, ns string, n int) time.Duration {
	ctx := context.Background()
	converged := &unstructured.UnstructuredList{}
	converged.SetAPIVersion(storageAPI)
	converged.SetKind("StorageAccountList")
	if err := k8s.List(ctx, converged, client.InNamespace(ns)); err != nil {
		b.Fatal(err)
	}
	if len(converged.Items) != n {
		b.Fatalf("%d converged objects, want %d", len(converged.Items), n)
	}
	for i := range converged.Items {
		if s, reason, msg := readyReason(&converged.Items[i]); s != "True" {
			b.Fatalf("%s is not Ready (%s: %s) though the watch said all were", converged.Items[i].GetName(), reason, msg)
		}
	}
	floorNS := benchNamespace(b, "scale-floor")
	start := time.Now()
	if err := parallel(len(converged.Items), func(i int) error {
		src := &converged.Items[i]
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": storageAPI, "kind": "StorageAccount",
			"metadata": map[string]any{"name": src.GetName(), "namespace": floorNS}, "spec": src.Object["spec"]}}
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
	return time.Since(start)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// cpuProfiles saves 30-second CPU profiles of the operator and the
// apiserver, 20 seconds into the converge, into dir
// (ARMATURE_BENCH_CPUPROFILE, with ARMATURE_BENCH_PPROF).
func cpuProfiles(b *testing.B, dir, operatorAddr string) {
	time.Sleep(20 * time.Second)
	hc, err := rest.HTTPClientFor(restCfg)
	if err != nil {
		b.Log(err)
		return
	}
	save := func(c *http.Client, url, file string) {
		resp, err := c.Get(url)
		if err != nil {
			b.Log(err)
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		_ = os.WriteFile(filepath.Join(dir, file), raw, 0o600)
	}
	go save(http.DefaultClient, "http://"+operatorAddr+"/debug/pprof/profile?seconds=30", "operator.cpu.pprof")
	// This process: the emulator and the bench's own creates and watch.
	if f, err := os.Create(filepath.Join(dir, "bench.cpu.pprof")); err == nil {
		if pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	save(hc, strings.TrimSuffix(restCfg.Host, "/")+"/debug/pprof/profile?seconds=30", "apiserver.cpu.pprof")
}

// saveHeap saves the operator's heap profile (not collected first: what
// the peak holds) to file.
func saveHeap(addr, file string) {
	resp, err := http.Get("http://" + addr + "/debug/pprof/heap")
	if err != nil {
		return
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	_ = os.WriteFile(file, raw, 0o600)
}

// heapTop is the top of the operator's in-use heap (ARMATURE_BENCH_PPROF).
func heapTop(b *testing.B, dir, bin, addr string) string {
	resp, err := http.Get("http://" + addr + "/debug/pprof/heap?gc=1")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	f := filepath.Join(dir, "heap.pprof")
	if p := os.Getenv("ARMATURE_BENCH_PPROF"); strings.HasSuffix(p, ".pprof") {
		f = p // kept for go tool pprof
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := os.WriteFile(f, raw, 0o600); err != nil {
		return err.Error()
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=12", "-sample_index=inuse_space", bin, f).CombinedOutput()
	if err != nil {
		return err.Error() + string(out)
	}
	return string(out)
}
