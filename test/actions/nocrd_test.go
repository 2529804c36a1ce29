package actions_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
)

// Without the Action CRD the operator starts and runs the generated kinds
// as before.
func TestOperatorWithoutActionCRD(t *testing.T) {
	assets, err := envtestutil.Assets()
	if err != nil {
		t.Fatal(err)
	}
	crds := filepath.Join(envtestutil.RepoRoot(), "generated", "crds")
	env := &envtest.Environment{BinaryAssetsDirectory: assets, ErrorIfCRDPathMissing: true,
		CRDDirectoryPaths: []string{filepath.Join(crds, "resources.azure.armature.dev_resourcegroups.yaml"), filepath.Join(crds, "storage.azure.armature.dev_storageaccounts.yaml")}}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	c, err := envtestutil.Client(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	fa := startARM(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- operator.Run(ctx, cfg, operator.Config{
			Reconciler:  reconciler.Config{SubscriptionID: subscription, PollInterval: 50 * time.Millisecond}.Default(),
			ARMEndpoint: fa.URL, ARMCAFile: writeCA(t, fa.CertPEM), ARMToken: "t",
			MetricsAddr: "0", ProbeAddr: "0", SkipNameValidation: true,
			DefaultCredentialNamespaces: []string{"default"},
		})
	}()
	rg := resourceGroup("default", "no-actions-rg")
	if err := c.Create(context.Background(), rg); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the resource group to be created in ARM", func() (bool, string) {
		return fa.Count("PUT 201") == 1, "no PUT yet"
	})
	select {
	case err := <-done:
		t.Fatalf("the operator stopped: %v", err)
	default:
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("operator: %v", err)
	}
}
