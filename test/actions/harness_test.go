package actions_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	actionsv1alpha1 "github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
	hook "github.com/armature-dev/armature/webhook"
)

const subscription = "00000000-0000-0000-0000-0000000000ac"

var (
	restCfg *rest.Config
	k8s     client.Client
	scheme  = runtime.NewScheme()
)

// TestMain starts one apiserver with the generated CRDs, the Action CRD and
// the Action webhook, served by a webhook-only manager that lives as long
// as the package's tests (so Actions can be created while no operator
// runs).
func TestMain(m *testing.M) {
	_ = corev1.AddToScheme(scheme)
	_ = apis.AddToScheme(scheme)
	_ = actionsv1alpha1.AddToScheme(scheme)
	if os.Getenv("ARMATURE_TEST_LOG") != "" {
		log.SetLogger(zap.New(zap.UseDevMode(true)))
	}
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test/actions:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	assets, err := envtestutil.Assets()
	if err != nil {
		return 0, err
	}
	root := envtestutil.RepoRoot()
	wh := hook.ActionValidatingWebhook()
	p := strings.TrimPrefix(*wh.ClientConfig.Service.Path, "/") // envtest joins it to its URL
	wh.ClientConfig.Service.Path = &p
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join(root, "generated", "crds"), filepath.Join(root, "api", "actions", "crd.yaml")},
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{{
				ObjectMeta: metav1.ObjectMeta{Name: "armature-actions"},
				Webhooks:   []admissionregistrationv1.ValidatingWebhook{wh},
			}},
			LocalServingHost: "127.0.0.1",
		},
	}
	if restCfg, err = env.Start(); err != nil {
		return 0, err
	}
	defer func() { _ = env.Stop() }()
	restCfg.QPS, restCfg.Burst = 500, 1000
	if k8s, err = envtestutil.Client(restCfg, client.Options{Scheme: scheme}); err != nil {
		return 0, err
	}
	wio := &env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          ctrlwebhook.NewServer(ctrlwebhook.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir}),
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return 0, err
	}
	if err := hook.Setup(mgr, hook.New(apis.Descriptors())); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() { cancel(); <-done }()
	return m.Run(), nil
}

// startARM starts an emulator whose operations end after polls polls.
func startARM(t *testing.T, polls int) *fakearm.Running {
	t.Helper()
	r, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: polls, RetryAfter: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// running is an operator started with operator.Run.
type running struct {
	cancel context.CancelFunc
	done   chan error
}

// startOperator runs the operator (runtime/operator.Run, as cmd/operator
// does) against fa, watching namespace ns, until stop or the end of the
// test.
func startOperator(t *testing.T, fa *fakearm.Running, ns string) *running {
	t.Helper()
	ca := writeCA(t, fa.CertPEM)
	cfg := operator.Config{
		Reconciler:      reconciler.Config{SubscriptionID: subscription, PollInterval: 50 * time.Millisecond, SyncPeriod: time.Hour, WorkersPerKind: 2}.Default(),
		ARMEndpoint:     fa.URL,
		ARMCAFile:       ca,
		ARMToken:        "test",
		WatchNamespaces: []string{ns},
		// The test's namespace has no credential Secret: the operator's own
		// serves it, as an administrator's opt-in would.
		DefaultCredentialNamespaces: []string{ns},
		MetricsAddr:                 "0",
		ProbeAddr:                   "0",
		SkipNameValidation:          true,
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- operator.Run(ctx, restCfg, cfg) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// writeCA writes the emulator's certificate for --arm-ca-file.
func writeCA(t *testing.T, pem []byte) string {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "fakearm.pem")
	if err := os.WriteFile(ca, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	return ca
}

// stop stops the operator and waits for it; it may be called twice.
func (r *running) stop(t *testing.T) {
	t.Helper()
	if r.done == nil {
		return
	}
	r.cancel()
	if err := <-r.done; err != nil {
		t.Errorf("operator: %v", err)
	}
	r.done = nil
}

func namespace(t *testing.T) string {
	t.Helper()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: strings.Trim(name, "-") + "-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

func cr(kind, apiVersion, ns, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
}

func resourceGroup(ns, name string) *unstructured.Unstructured {
	return cr("ResourceGroup", "resources.azure.armature.dev/v20240301", ns, name, map[string]any{"location": "westeurope"})
}

func storageAccount(ns, name, owner string) *unstructured.Unstructured {
	return cr("StorageAccount", "storage.azure.armature.dev/v20230501", ns, name, map[string]any{
		"owner": map[string]any{"name": owner}, "location": "westeurope", "kind": "StorageV2",
		"sku": map[string]any{"name": "Standard_LRS"},
	})
}

func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := k8s.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

// getAction reads an Action from the apiserver.
func getAction(t *testing.T, ns, name string) *actionsv1alpha1.Action {
	t.Helper()
	a := &actionsv1alpha1.Action{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, a); err != nil {
		t.Fatalf("get Action %s: %v", name, err)
	}
	return a
}

// readyOf returns an unstructured object's Ready status and its status.id.
func readyOf(t *testing.T, o *unstructured.Unstructured) (bool, string) {
	t.Helper()
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(o.GroupVersionKind())
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), cur); err != nil {
		t.Fatal(err)
	}
	id, _, _ := unstructured.NestedString(cur.Object, "status", "id")
	conds, _, _ := unstructured.NestedSlice(cur.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "Ready" {
			return m["status"] == "True", id
		}
	}
	return false, id
}

// eventually polls cond until it holds or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, msg := cond()
		if ok {
			return
		}
		last = msg
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s; last: %s", timeout, what, last)
}

// waitReady waits for a generated custom resource to be Ready and returns
// its ARM id.
func waitReady(t *testing.T, o *unstructured.Unstructured) string {
	t.Helper()
	var id string
	eventually(t, 30*time.Second, o.GetKind()+" "+o.GetName()+" Ready", func() (bool, string) {
		ok, i := readyOf(t, o)
		id = i
		return ok && i != "", "not Ready"
	})
	return id
}

// waitPhase waits for an Action to reach a phase.
func waitPhase(t *testing.T, ns, name string, phase actionsv1alpha1.ActionPhase) *actionsv1alpha1.Action {
	t.Helper()
	var a *actionsv1alpha1.Action
	eventually(t, 30*time.Second, "Action "+name+" "+string(phase), func() (bool, string) {
		a = getAction(t, ns, name)
		return a.Status.Phase == phase, fmt.Sprintf("phase %q, conditions %+v", a.Status.Phase, a.Status.Conditions)
	})
	return a
}

// posts counts the POSTs of the journal to a path ending in suffix.
func posts(fa *fakearm.Running, suffix string) int {
	n := 0
	for _, e := range fa.Journal() {
		if e.Method == "POST" && strings.HasSuffix(e.Path, suffix) {
			n++
		}
	}
	return n
}
