package reconciler_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
)

// TestStopWhileServing stops the operator at moments spread over the
// serving of its kinds (a controller and a drift observer started per
// kind as it is served): each stop ends within the manager's grace period.
// Added to the manager at that moment, a controller could deadlock the
// stop (controller-runtime's runnable group), and the manager reported
// "failed waiting for all runnables to end within grace period" after
// 30 s; RunManager fails the test on it, naming the goroutines left.
func TestStopWhileServing(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	cfg := reconciler.Config{FirstObservation: time.Millisecond, SyncPeriod: time.Second}
	for i := range 8 {
		op := startOperator(t, fa, ns, cfg)
		after := time.Duration(i) * 400 * time.Millisecond
		time.Sleep(after)
		op.stop()
		if t.Failed() {
			t.Fatalf("the stop %v after start did not end", after)
		}
	}
}

// lateAdds is a manager that counts the runnables added to it once it
// runs.
type lateAdds struct {
	manager.Manager
	started atomic.Bool
	late    atomic.Int32
}

func (m *lateAdds) Add(r manager.Runnable) error {
	if m.started.Load() {
		m.late.Add(1)
	}
	return m.Manager.Add(r)
}

// TestServeAddsNoRunnable serves kinds on a running manager: their
// controllers and observers are run by the Serving, and nothing is added
// to the manager (an Add racing the manager's stop can deadlock it, which
// TestStopWhileServing meets only now and then).
func TestServeAddsNoRunnable(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	mgr := envtestutil.NewManager(t, restCfg, scheme, ns)
	armClient, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("test"), Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	m := &lateAdds{Manager: mgr}
	cfg := reconciler.Config{SubscriptionID: subscription, PollInterval: 50 * time.Millisecond, SyncPeriod: time.Hour, FirstObservation: time.Hour}
	s, err := reconciler.SetupServing(m, armClient, apis.Descriptors(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	envtestutil.RunManager(t, m)
	m.started.Store(true)
	kinds := []schema.GroupKind{
		{Group: "resources.azure.armature.dev", Kind: "ResourceGroup"},
		{Group: "storage.azure.armature.dev", Kind: "StorageAccount"},
		{Group: "network.azure.armature.dev", Kind: "VirtualNetwork"},
	}
	for _, gk := range kinds {
		if err := s.Serve(context.Background(), gk); err != nil {
			t.Fatal(err)
		}
	}
	if n := m.late.Load(); n != 0 {
		t.Errorf("serving %d kinds added %d runnables to the running manager, want none", len(kinds), n)
	}
	// Served means reconciled: a resource group of the namespace is Ready.
	rg := resourceGroup(ns, "late")
	create(t, rg)
	waitReady(t, rg)
}
