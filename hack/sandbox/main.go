package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
)

// The identities of the sandbox (doc.go, docs/sandbox.md).
const (
	// operatorSubscription is the subscription of the operator's own
	// identity, which serves namespace default only.
	operatorSubscription = "00000000-0000-0000-0000-000000000000"
	// The application the emulator's Azure AD knows, for the credential
	// Secrets of other namespaces.
	teamTenant       = "sandbox"
	teamClientID     = "sandbox-team"
	teamSecret       = "sandbox-secret"
	teamSubscription = "11111111-1111-1111-1111-111111111111"
)

// defaultNamespaces are the namespaces opted in to the operator's own
// identity.
var defaultNamespaces = []string{"default"}

func main() {
	// Signals stay caught until everything is stopped: a second Ctrl-C
	// must not leave kube-apiserver and etcd behind.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		if ctx.Err() != nil {
			os.Exit(130)
		}
		os.Exit(1)
	}
}

// began is when the sandbox started, for the times progress prints.
var began = time.Now()

// progress writes a line to standard error, with the time since the start.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sandbox: %6s "+format+"\n", append([]any{time.Since(began).Round(100 * time.Millisecond)}, args...)...)
}

// run starts the sandbox in its folder, prints the two lines on stdout
// and waits for ctx; it stops what it started before returning.
func run(ctx context.Context, stdout io.Writer) error {
	dir, err := folder()
	if err != nil {
		return err
	}
	unlock, err := lock(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if n := reapOrphans(dir); n > 0 {
		progress("stopped %d kube-apiserver/etcd processes a killed sandbox left in %s", n, dir)
	}
	s, err := start(ctx, dir)
	defer s.stop()
	if err != nil {
		return err
	}
	progress("ready; files in %s", dir)
	hints(s)
	fmt.Fprintf(stdout, "KUBECONFIG=%s\nARM=%s\n", s.kubeconfig, s.arm.URL)
	select {
	case <-ctx.Done():
		progress("stopping the operator, the emulator, kube-apiserver and etcd")
		return nil
	case <-s.op.Done():
		return fmt.Errorf("the operator stopped: %v", s.op.Err())
	}
}

// folder is SANDBOX_DIR, else ./.sandbox, made absolute and created.
func folder() (string, error) {
	dir := os.Getenv("SANDBOX_DIR")
	if dir == "" {
		dir = ".sandbox"
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// sandbox is what start started; stop undoes it in reverse order.
type sandbox struct {
	dir, kubeconfig string
	cp              *stack.ControlPlane
	arm             *stack.ARM
	op              *stack.Operator
	undo            []func()
}

func (s *sandbox) stop() {
	for i := len(s.undo) - 1; i >= 0; i-- {
		s.undo[i]()
	}
}

// start starts kube-apiserver and etcd, the emulator and the operator,
// and writes the kubeconfig. The sandbox is returned also with an error,
// to be stopped.
func start(ctx context.Context, dir string) (*sandbox, error) {
	s := &sandbox{dir: dir, kubeconfig: filepath.Join(dir, "kubeconfig")}
	tmp := filepath.Join(dir, "tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return s, err
	}
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return s, err
	}
	s.undo = append(s.undo, func() { _ = os.RemoveAll(tmp) })
	// envtest makes etcd's data folder and the certificates' folders with
	// os.MkdirTemp: TMPDIR keeps them in the sandbox's folder.
	if err := os.Setenv("TMPDIR", tmp); err != nil {
		return s, err
	}
	logs, err := openLogs(dir)
	s.undo = append(s.undo, logs.close)
	if err != nil {
		return s, err
	}
	// Never above MaxLogLevel: client-go logs apiserver bodies (Secrets) there.
	ctrl.SetLogger(operator.CapLevel(zap.New(zap.WriteTo(logs.operator)), operator.MaxLogLevel))

	progress("starting kube-apiserver and etcd (envtest), installing %d CRDs and the webhook configurations", len(stack.CRDFiles()))
	if s.cp, err = stack.StartControlPlane(stack.ControlPlaneOptions{APIServerLog: logs.apiserver, EtcdLog: logs.etcd}); err != nil {
		return s, err
	}
	s.undo = append(s.undo, s.cp.Stop)
	progress("starting the ARM emulator")
	if s.arm, err = stack.StartARM(armOptions(), filepath.Join(dir, "arm-ca.pem")); err != nil {
		return s, err
	}
	s.undo = append(s.undo, s.arm.Stop)
	progress("starting the operator with its admission and conversion webhooks (log: %s)", filepath.Join(dir, "operator.log"))
	s.op, err = stack.StartOperator(ctx, s.cp, s.arm, operatorConfig())
	s.undo = append(s.undo, s.op.Stop)
	if err != nil {
		return s, err
	}
	if err := os.WriteFile(s.kubeconfig, s.cp.KubeConfig, 0o600); err != nil {
		return s, err
	}
	s.undo = append(s.undo, func() { _ = os.Remove(s.kubeconfig) })
	return s, ctx.Err()
}

// armOptions are the emulator's: the operator's own token may use every
// subscription; the team application only its own. Operations end after
// two polls with no Retry-After, so that manifests converge in seconds.
func armOptions() fakearm.Options {
	return fakearm.Options{
		LROPolls: 2, RetryAfter: -1,
		Token: operatorToken,
		Apps:  []fakearm.App{{Tenant: teamTenant, ClientID: teamClientID, Secret: teamSecret, Subscriptions: []string{teamSubscription}}},
	}
}

// operatorConfig is the operator's: its own identity (the emulator token)
// for namespace default only, as an administrator would opt it in.
func operatorConfig() operator.Config {
	return operator.Config{
		Reconciler:                  reconciler.Config{SubscriptionID: operatorSubscription, PollInterval: 300 * time.Millisecond},
		ARMToken:                    operatorToken,
		DefaultCredentialNamespaces: defaultNamespaces,
	}
}

// operatorToken is the operator's own bearer token for the emulator, new
// in every sandbox: nobody else holds the operator's identity.
var operatorToken = func() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "sandbox-operator." + hex.EncodeToString(b[:])
}()
