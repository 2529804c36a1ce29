package importer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
	hook "github.com/armature-dev/armature/webhook"
)

const subscription = "00000000-0000-0000-0000-0000000000d1"

var (
	restCfg *rest.Config
	k8s     client.Client
	scheme  = runtime.NewScheme()
)

// TestMain starts the apiserver with the generated CRDs and the admission
// webhook (with the configured defaults, as the operator serves it), for
// every test.
func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test/importer:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	if os.Getenv("ARMATURE_TEST_LOG") != "" {
		ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	_ = clientgoscheme.AddToScheme(scheme)
	_ = apis.AddToScheme(scheme)
	assets, err := envtestutil.Assets()
	if err != nil {
		return 0, err
	}
	ds := apis.Descriptors()
	v, mw := hook.ValidatingWebhookConfiguration(ds), hook.MutatingWebhookConfiguration(ds)
	for _, s := range []*admissionregistrationv1.ServiceReference{v.Webhooks[0].ClientConfig.Service, mw.Webhooks[0].ClientConfig.Service} {
		// envtest makes https://host:port/<path> of a Service reference.
		s.Path = ptr.To(strings.TrimPrefix(*s.Path, "/"))
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join(envtestutil.RepoRoot(), "generated", "crds")},
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{v},
			MutatingWebhooks:   []*admissionregistrationv1.MutatingWebhookConfiguration{mw},
			LocalServingHost:   "127.0.0.1",
		},
	}
	if restCfg, err = env.Start(); err != nil {
		return 0, fmt.Errorf("envtest with %s: %w", assets, err)
	}
	defer func() { _ = env.Stop() }()
	restCfg.QPS, restCfg.Burst = 500, 1000
	if k8s, err = envtestutil.Client(restCfg, client.Options{Scheme: scheme}); err != nil {
		return 0, err
	}
	wio := &env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir}),
	})
	if err != nil {
		return 0, err
	}
	var opts []hook.Option
	for gvk, d := range apis.Defaults() {
		opts = append(opts, hook.WithDefaults(gvk, d))
	}
	if err := hook.Setup(mgr, hook.New(ds, opts...)); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = mgr.Start(ctx) }()
	if err := waitForWebhook(); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// waitForWebhook waits until the apiserver calls the defaulting webhook:
// a dry-run create gets azureName.
func waitForWebhook() error {
	ctx := context.Background()
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "probe"}}); err != nil {
		return err
	}
	var last error = errors.New("not tried")
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		u := cr("ResourceGroup", "resources.azure.armature.dev/v20240301", "probe", "probe", map[string]any{"location": "westeurope"})
		if last = k8s.Create(ctx, u, client.DryRunAll); last != nil {
			continue
		}
		if n, _, _ := unstructured.NestedString(u.Object, "spec", "azureName"); n == "probe" {
			return nil
		}
		last = errors.New("the defaulting webhook is not called yet")
	}
	return fmt.Errorf("the webhook is not called by the apiserver after 60s: %w", last)
}

func cr(kind, apiVersion, ns, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
}

// emulator starts an ARM emulator and a client of it.
func emulator(t *testing.T, opts fakearm.Options) (*fakearm.Running, arm.Client) {
	t.Helper()
	opts.RetryAfter = -1
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	c, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: fa.HTTPClient(), MaxRetries: 5})
	if err != nil {
		t.Fatal(err)
	}
	return fa, c
}

// put makes a resource in the emulator through ARM, polling an operation
// to its end.
func put(t *testing.T, c arm.Client, id, apiVersion string, body string) {
	t.Helper()
	ctx := context.Background()
	res, err := c.Put(ctx, id, apiVersion, []byte(body))
	for err == nil && !res.Done() {
		res, err = c.Poll(ctx, res.Token)
	}
	if err != nil {
		t.Fatalf("PUT %s: %v", id, err)
	}
}

// startOperator runs every reconciler against the emulator, watching ns,
// until the test ends.
func startOperator(t *testing.T, fa *fakearm.Running, ns string) {
	t.Helper()
	mgr := envtestutil.NewManager(t, restCfg, scheme, ns)
	armClient, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: fa.HTTPClient(), MaxRetries: 5})
	if err != nil {
		t.Fatal(err)
	}
	// The drift observer passes every 3 seconds: the test watches a resync.
	cfg := reconciler.Config{SubscriptionID: subscription, PollInterval: 50 * time.Millisecond, SyncPeriod: 3 * time.Second, FirstObservation: 3 * time.Second, Jitter: 0.01}
	if err := reconciler.SetupAll(mgr, armClient, apis.Descriptors(), cfg); err != nil {
		t.Fatal(err)
	}
	envtestutil.RunManager(t, mgr)
}

func namespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: strings.ToLower(t.Name()) + "-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// apply creates the objects of an import's files in ns, in the order of
// its kustomization.yaml, refusing unknown fields (as kubectl apply does).
func apply(t *testing.T, dir, ns string) []*unstructured.Unstructured {
	t.Helper()
	var k struct {
		Resources []string `json:"resources"`
	}
	readYAML(t, filepath.Join(dir, "kustomization.yaml"), &k)
	var out []*unstructured.Unstructured
	for _, f := range k.Resources {
		u := &unstructured.Unstructured{}
		readYAML(t, filepath.Join(dir, f), &u.Object)
		u.SetNamespace(ns)
		if err := k8s.Create(context.Background(), u, client.FieldValidation("Strict")); err != nil {
			t.Fatalf("apply %s: %v", f, err)
		}
		out = append(out, u)
	}
	return out
}

func readYAML(t *testing.T, file string, into any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func get(t *testing.T, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(o.GroupVersionKind())
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), cur); err != nil {
		t.Fatalf("get %s %s: %v", o.GetKind(), o.GetName(), err)
	}
	return cur
}

// ready returns the Ready condition's status, reason and message.
func ready(u *unstructured.Unstructured) (string, string, string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			s, _ := m["status"].(string)
			r, _ := m["reason"].(string)
			msg, _ := m["message"].(string)
			return s, r, msg
		}
	}
	return "", "", ""
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	last := ""
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
	}
	t.Fatalf("%s: not within %s; last: %s", what, timeout, last)
}

// waitAdopted waits until every object is Ready and its adoption decided
// (Ready with an observed status.id; with a policy that writes, the
// last-applied annotation recorded).
func waitAdopted(t *testing.T, objs []*unstructured.Unstructured, writes bool) {
	t.Helper()
	for _, o := range objs {
		if o.GetAPIVersion() == "v1" {
			continue
		}
		waitFor(t, 60*time.Second, o.GetKind()+" "+o.GetName()+" adopted", func() (bool, string) {
			cur := get(t, o)
			s, r, m := ready(cur)
			id, _, _ := unstructured.NestedString(cur.Object, "status", "id")
			_, applied := cur.GetAnnotations()[core.AnnotationLastApplied]
			return s == "True" && id != "" && (applied || !writes), s + " " + r + " " + m
		})
	}
}

// armWrites counts the emulator's answered write requests.
func armWrites(fa *fakearm.Running) int64 {
	return fa.Count("PUT") + fa.Count("PATCH") + fa.Count("DELETE") + fa.Count("POST")
}

// writesIn lists the write requests of the journal, for a failure message.
func writesIn(fa *fakearm.Running) string {
	var out []string
	for _, e := range fa.Journal() {
		if e.Method != "GET" {
			out = append(out, fmt.Sprintf("%s %s %d %s", e.Method, e.Path, e.Status, e.Body))
		}
	}
	return strings.Join(out, "\n")
}
