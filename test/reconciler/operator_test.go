package reconciler_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	armop "github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// TestOperatorRun runs the operator's own wiring (operator.Run: the
// credential, the installed-kind check, the reconcilers) against envtest and
// the emulator, the way cmd/operator does.
func TestOperatorRun(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := armop.Config{
		Reconciler:      reconciler.Config{SubscriptionID: subscription, PollInterval: 50e6},
		ARMEndpoint:     fa.URL,
		ARMCAFile:       ca,
		ARMToken:        "t",
		WatchNamespaces: []string{ns},
		// The namespace has no credential Secret: opted in to the
		// operator's own, as an administrator would.
		DefaultCredentialNamespaces: []string{ns},
		Kinds:                       "resources.*/*,storage.*/StorageAccount",
		MetricsAddr:                 "0",
		ProbeAddr:                   "0",
		// Controllers register metrics by name process-wide: a second run
		// in this process (go test -count=N) would clash.
		SkipNameValidation: true,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- armop.Run(ctx, restCfg, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("armop.Run: %v", err)
		}
	})
	rg := resourceGroup(ns, "run")
	sa := storageAccount(ns, "run01", "run")
	create(t, rg, sa)
	waitReady(t, rg, sa)
}
