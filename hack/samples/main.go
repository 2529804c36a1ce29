package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/hack/internal/stack"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
)

// operatorSubscription is the subscription of the operator's own identity,
// as in the sandbox.
const operatorSubscription = "00000000-0000-0000-0000-000000000000"

// namespace is where the samples are applied: the namespace the sandbox
// opts in to the operator's own identity.
const namespace = "default"

// options are the command's flags.
type options struct {
	dir     string
	logs    string
	min     float64
	timeout time.Duration
	settle  time.Duration
}

func main() {
	o := options{}
	flag.StringVar(&o.dir, "dir", filepath.Join(envtestutil.RepoRoot(), "config", "samples"), "folder of the samples")
	flag.StringVar(&o.logs, "logs", "", "folder for the operator, kube-apiserver and etcd logs (default: a temporary folder, kept when a sample is not Ready)")
	flag.Float64Var(&o.min, "min", defaultMin, "exit 1 when fewer than this fraction of the samples are Ready")
	flag.DurationVar(&o.timeout, "timeout", 90*time.Second, "longest wait for the samples to be Ready")
	flag.DurationVar(&o.settle, "settle", 15*time.Second, "stop waiting once no sample's condition has changed for this long")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	code, err := run(ctx, o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "samples:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

// began is when the command started, for the times progress prints.
var began = time.Now()

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "samples: %6s "+format+"\n", append([]any{time.Since(began).Round(100 * time.Millisecond)}, args...)...)
}

// run starts the stack, applies and waits; it returns the exit code.
func run(ctx context.Context, o options, out io.Writer) (int, error) {
	objs, err := readSamples(o.dir)
	if err != nil {
		return 0, err
	}
	logs := o.logs
	keepLogs := logs != ""
	if logs == "" {
		if logs, err = os.MkdirTemp("", "armature-samples-"); err != nil {
			return 0, err
		}
	}
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return 0, err
	}
	opLog, err := os.Create(filepath.Join(logs, "operator.log"))
	if err != nil {
		return 0, err
	}
	defer opLog.Close()
	apiLog, err := os.Create(filepath.Join(logs, "kube-apiserver.log"))
	if err != nil {
		return 0, err
	}
	defer apiLog.Close()
	// Never above MaxLogLevel: client-go logs apiserver bodies (Secrets) there.
	ctrl.SetLogger(operator.CapLevel(zap.New(zap.WriteTo(opLog)), operator.MaxLogLevel))

	progress("starting kube-apiserver and etcd, installing %d CRDs", len(stack.CRDFiles()))
	cp, err := stack.StartControlPlane(stack.ControlPlaneOptions{APIServerLog: apiLog, EtcdLog: apiLog})
	if err != nil {
		return 0, err
	}
	defer cp.Stop()
	token := newToken()
	arm, err := stack.StartARM(fakearm.Options{LROPolls: 2, RetryAfter: -1, Token: token}, filepath.Join(logs, "arm-ca.pem"))
	if err != nil {
		return 0, err
	}
	defer arm.Stop()
	progress("starting the operator (log: %s)", opLog.Name())
	op, err := stack.StartOperator(ctx, cp, arm, operator.Config{
		Reconciler:                  reconciler.Config{SubscriptionID: operatorSubscription, PollInterval: 300 * time.Millisecond},
		ARMToken:                    token,
		DefaultCredentialNamespaces: []string{namespace},
	})
	defer op.Stop()
	if err != nil {
		return 0, err
	}
	progress("applying %d objects from %s", len(objs), o.dir)
	res, err := applyAndWait(ctx, cp, objs, o)
	if err != nil {
		return 0, err
	}
	res.print(out)
	progress("done")
	if res.ready < res.total() && !keepLogs {
		keepLogs = true
		progress("logs kept in %s", logs)
	}
	if !keepLogs {
		_ = os.RemoveAll(logs)
	}
	if res.total() == 0 || float64(res.ready) < o.min*float64(res.total()) {
		fmt.Fprintf(out, "below the threshold: %d/%d Ready, want at least %.0f%%\n", res.ready, res.total(), 100*o.min)
		return 1, nil
	}
	return 0, nil
}

// newToken is the operator's bearer token for the emulator, new in every
// run.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "samples-operator." + hex.EncodeToString(b[:])
}
