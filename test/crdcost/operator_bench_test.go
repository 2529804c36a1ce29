package crdcost

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/test/envtestutil"
)

// BenchmarkOperatorCost: what the operator costs per installed CRD. It
// builds cmd/operator (ARMATURE_BENCH_OPERATOR_BIN: another build, such as
// the generated tier's tier/cmd/operator) and runs it as its own process
// against envtest and the emulator, every namespace, with no custom
// resource:
//   - started with no CRD installed: time to ready, resident memory idle;
//   - the curated CRDs (config/crd, not its generated/ folder) installed
//     while it runs: time until it serves every one (no restart), memory
//     idle;
//   - with TIER_CRD_DIR (default config/crd/generated when present) the
//     generated tier's CRDs installed too: the same;
//   - restarted with all of them installed: time to ready and until every
//     kind is served.
//
// make bench-operator prints the figures (docs/tiers.md).
func BenchmarkOperatorCost(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	log.SetLogger(logr.Discard()) // envtest's CRD install logs through it
	root := envtestutil.RepoRoot()
	dir := b.TempDir()
	bin := os.Getenv("ARMATURE_BENCH_OPERATOR_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "operator")
		start := time.Now()
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./cmd/operator")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("build cmd/operator: %v\n%s", err, out)
		}
		b.Logf("built cmd/operator in %v", time.Since(start).Round(time.Millisecond))
	}
	if info, err := os.Stat(bin); err == nil {
		b.ReportMetric(float64(info.Size())/(1<<20), "binary-MiB")
	}
	curated, err := curatedFolders(filepath.Join(root, "config", "crd"))
	if err != nil {
		b.Fatal(err)
	}
	tierRoot := os.Getenv("TIER_CRD_DIR")
	if tierRoot == "" {
		if _, err := os.Stat(filepath.Join(root, "config", "crd", "generated")); err == nil {
			tierRoot = filepath.Join(root, "config", "crd", "generated")
		}
	}
	env, cfg, err := envtestutil.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	kc := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kc, env.KubeConfig, 0o600); err != nil {
		b.Fatal(err)
	}
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = fa.Close() }()
	ca := filepath.Join(dir, "arm-ca.pem")
	if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
		b.Fatal(err)
	}
	run := func(name string) *process {
		return startProcess(b, bin, dir, name, kc, "--arm-endpoint", fa.URL, "--arm-ca-file", ca, "--arm-token", "bench",
			"--default-credential-namespaces", "*", "--metrics-bind-address", "0", "--pprof-bind-address", freeAddr(b))
	}
	install := func(dirs []string) int {
		crds, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: dirs, ErrorIfPathMissing: true})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, c := range crds {
			if c.Spec.Group != "actions.azure.armature.dev" {
				n++
			}
		}
		return n
	}

	// Each figure is logged as it is measured, so that a run that fails
	// later still says what it measured.
	report := func(v float64, unit string) {
		b.Logf("%s: %.2f", unit, v)
		b.ReportMetric(v, unit)
	}
	// Memory: resident, Go heap in use and goroutines (the operator's
	// pprof; ARMATURE_BENCH_PROFILE_DIR keeps each heap profile).
	memory := func(op *process, at string) {
		report(op.rss(), "operator-RSS-MiB-"+at)
		g, heap := op.profile(b, at)
		report(heap, "operator-heap-MiB-"+at)
		report(g, "operator-goroutines-"+at)
	}
	b.ResetTimer()
	op := run("empty")
	report(op.waitReady(b).Seconds(), "s-to-ready-0-CRDs")
	time.Sleep(settle)
	memory(op, "0-CRDs")

	start := time.Now()
	kinds := install(curated)
	op.waitServed(b, kinds)
	report(time.Since(start).Seconds(), "s-install-and-serve-curated")
	time.Sleep(settle)
	report(float64(kinds), "curated-kinds")
	memory(op, "curated")
	if tierRoot != "" {
		dirs, _, _, err := crdFolders(tierRoot)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		more := install(dirs)
		op.waitServed(b, kinds+more)
		kinds += more
		report(time.Since(start).Seconds(), "s-install-and-serve-tier")
		time.Sleep(settle)
		report(float64(more), "tier-kinds")
		memory(op, "all")
	} else {
		b.Log("no generated tier (make crds, or TIER_CRD_DIR): curated CRDs only")
	}
	op.stop()

	again := run("restart")
	report(again.waitReady(b).Seconds(), "s-to-ready-installed")
	report(again.waitServed(b, kinds).Seconds(), "s-to-serve-installed")
	time.Sleep(settle)
	memory(again, "restarted")
	b.StopTimer()
	again.stop()
}

// curatedFolders are the CRD folders below root but its generated/ (the
// generated tier's).
func curatedFolders(root string) ([]string, error) {
	dirs, _, _, err := crdFolders(root)
	var out []string
	for _, d := range dirs {
		if rel, _ := filepath.Rel(root, d); rel != "generated" && !strings.HasPrefix(rel, "generated"+string(filepath.Separator)) {
			out = append(out, d)
		}
	}
	return out, err
}

// process is the operator running as its own process.
type process struct {
	cmd     *exec.Cmd
	log     string
	probe   string
	pprof   string // its /debug/pprof address, if any
	started time.Time
}

// freeAddr is a loopback address nothing listens on now.
func freeAddr(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

func startProcess(b *testing.B, bin, dir, name, kubeconfig string, args ...string) *process {
	probe := freeAddr(b)
	logf := filepath.Join(dir, "operator-"+name+".log")
	out, err := os.Create(logf)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, append(args, "--health-probe-bind-address", probe, "--zap-log-level", "info")...)
	// As config/manager runs it: GOMEMLIMIT at the memory request, GOGC 50.
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "GOMEMLIMIT=256MiB", "GOGC=50")
	cmd.Stdout, cmd.Stderr = out, out
	p := &process{cmd: cmd, log: logf, probe: probe, started: time.Now()}
	for i, a := range args {
		if a == "--pprof-bind-address" && i+1 < len(args) {
			p.pprof = args[i+1]
		}
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.stop)
	return p
}

// waitReady waits for /readyz and returns the time since the start.
func (p *process) waitReady(b *testing.B) time.Duration {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + p.probe + "/readyz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(p.started)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("the operator is not ready after 2 minutes:\n%s", p.tail())
	return 0
}

// waitServed waits until the operator has logged serving n kinds and
// returns the time since its start.
func (p *process) waitServed(b *testing.B, n int) time.Duration {
	deadline := time.Now().Add(30 * time.Minute)
	for time.Now().Before(deadline) {
		if p.served() >= n {
			return time.Since(p.started)
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("the operator serves %d kinds, want %d:\n%s", p.served(), n, p.tail())
	return 0
}

// served counts the kinds the operator said it serves.
func (p *process) served() int {
	data, _ := os.ReadFile(p.log)
	return bytes.Count(data, []byte("\tserving kind\t"))
}

func (p *process) rss() float64 {
	return envtestutil.ProcStatusMiB(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid), "VmRSS:")
}

// profile reads the process's goroutine count and Go heap in use (MiB)
// from its pprof; with ARMATURE_BENCH_PROFILE_DIR it keeps the heap
// profile there as heap-<at>.pb.gz.
func (p *process) profile(b *testing.B, at string) (goroutines, heapMiB float64) {
	if p.pprof == "" {
		return 0, 0
	}
	get := func(path string) []byte {
		resp, err := http.Get("http://" + p.pprof + path)
		if err != nil {
			b.Fatalf("pprof %s: %v", path, err)
		}
		defer func() { _ = resp.Body.Close() }()
		data, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("pprof %s: %v %s", path, err, resp.Status)
		}
		return data
	}
	// "goroutine profile: total N" heads the text form.
	if _, err := fmt.Sscanf(string(get("/debug/pprof/goroutine?debug=1")), "goroutine profile: total %g", &goroutines); err != nil {
		b.Fatalf("pprof goroutines: %v", err)
	}
	// The text heap profile ends with runtime.MemStats: "# HeapInuse = N".
	for _, line := range strings.Split(string(get("/debug/pprof/heap?debug=1")), "\n") {
		if v, ok := strings.CutPrefix(line, "# HeapInuse = "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				b.Fatalf("pprof heap: %q: %v", line, err)
			}
			heapMiB = n / (1 << 20)
		}
	}
	if keep := os.Getenv("ARMATURE_BENCH_PROFILE_DIR"); keep != "" {
		f := filepath.Join(keep, "heap-"+at+".pb.gz")
		if err := os.WriteFile(f, get("/debug/pprof/heap"), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Logf("heap profile: %s", f)
	}
	return goroutines, heapMiB
}

func (p *process) stop() { envtestutil.StopProcess(p.cmd) }

func (p *process) tail() string { return envtestutil.Tail(p.log) }
