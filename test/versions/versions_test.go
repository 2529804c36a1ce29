package versions

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
	"github.com/armature-dev/armature/webhook/conversion"
)

const (
	group        = "storage.azure.armature.dev"
	older, newer = "v20230101", "v20230501"
	subscription = "00000000-0000-0000-0000-0000000000bb"
)

type env struct {
	cfg   *rest.Config
	cl    client.Client
	calls *atomic.Int64
}

// start runs an apiserver with the generated CRDs, the multi-version ones
// converting through webhook/conversion served here over TLS.
func start(t *testing.T) *env {
	t.Helper()
	assets, err := envtestutil.Assets()
	if err != nil {
		t.Skip(err)
	}
	wio := &envtest.WebhookInstallOptions{LocalServingHost: "127.0.0.1"}
	if err := wio.PrepWithoutInstalling(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = wio.Cleanup() })
	url := "https://127.0.0.1:" + strconv.Itoa(wio.LocalServingPort) + conversion.Path
	crds, converted := loadCRDs(t, apiextv1.WebhookClientConfig{URL: &url, CABundle: wio.LocalServingCAData})
	if converted == 0 {
		t.Fatal("no generated CRD has several versions: specs/armature.yaml should name two Microsoft.Storage api-versions")
	}
	te := &envtest.Environment{BinaryAssetsDirectory: assets}
	cfg, err := te.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = te.Stop() })
	// Installed here rather than by envtest, which drops the conversion of
	// kinds its scheme cannot convert itself.
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		t.Fatal(err)
	}

	calls := &atomic.Int64{}
	conv := conversion.New(apis.Descriptors())
	srv := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir})
	srv.Register(conversion.Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		conv.ServeHTTP(w, r)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = srv.Start(ctx) }()
	t.Cleanup(cancel)

	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = apis.AddToScheme(s)
	cl, err := envtestutil.Client(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return &env{cfg: cfg, cl: cl, calls: calls}
}

func loadCRDs(t *testing.T, cc apiextv1.WebhookClientConfig) ([]*apiextv1.CustomResourceDefinition, int) {
	files, err := filepath.Glob("../../generated/crds/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in generated/crds: %v", err)
	}
	var out []*apiextv1.CustomResourceDefinition
	n := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(raw, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if conversion.Enable(crd, cc) {
			n++
		}
		out = append(out, crd)
	}
	return out, n
}

func namespace(t *testing.T, cl client.Client) string {
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"generateName": "versions-"}}}
	if err := cl.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.GetName()
}

func account(ns, name, version string, props map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/" + version, "kind": "StorageAccount",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{"owner": map[string]any{"armId": "/subscriptions/" + subscription + "/resourceGroups/rg"},
			"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}, "properties": props},
	}}
}

func get(t *testing.T, cl client.Client, ns, name, version string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(group + "/" + version)
	u.SetKind("StorageAccount")
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatalf("get %s at %s: %v", name, version, err)
	}
	return u
}

// Created at the newer version, read and edited at the older one, read
// back at the newer: the property the older version lacks survives, the
// edit made at the older version lands, and the apiserver called the
// webhook for it.
func TestNewerObjectThroughOlderVersion(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	ns := namespace(t, e.cl)
	if err := e.cl.Create(ctx, account(ns, "media", newer, map[string]any{"accessTier": "Hot", "enableExtendedGroups": true})); err != nil {
		t.Fatal(err)
	}
	before := e.calls.Load()
	old := get(t, e.cl, ns, "media", older)
	if e.calls.Load() == before {
		t.Error("reading at the older version did not call the conversion webhook")
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(old.Object, "spec", "properties", "enableExtendedGroups"); found {
		t.Errorf("%s has no enableExtendedGroups, yet the object read at it has one", older)
	}
	if !strings.Contains(old.GetAnnotations()[conversion.AnnotationPreserved], "enableExtendedGroups") {
		t.Fatalf("the property %s lacks must be kept in %s: %v", older, conversion.AnnotationPreserved, old.GetAnnotations())
	}
	_ = unstructured.SetNestedField(old.Object, "Cool", "spec", "properties", "accessTier")
	if err := e.cl.Update(ctx, old); err != nil {
		t.Fatalf("update at %s: %v", older, err)
	}
	now := get(t, e.cl, ns, "media", newer)
	if v, _, _ := unstructured.NestedString(now.Object, "spec", "properties", "accessTier"); v != "Cool" {
		t.Errorf("accessTier = %q after the edit at %s, want Cool", v, older)
	}
	if v, found, _ := unstructured.NestedBool(now.Object, "spec", "properties", "enableExtendedGroups"); !found || !v {
		t.Errorf("enableExtendedGroups was lost by a write at %s: %v", older, now.Object["spec"])
	}
	if _, ok := now.GetAnnotations()[conversion.AnnotationPreserved]; ok {
		t.Errorf("at %s nothing needs keeping, yet the annotation is there", newer)
	}
}

// Created at the older version, read at the newer and back: equal.
func TestOlderObjectRoundTrip(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	ns := namespace(t, e.cl)
	in := account(ns, "legacy", older, map[string]any{"accessTier": "Hot", "minimumTlsVersion": "TLS1_2", "networkAcls": map[string]any{"defaultAction": "Deny", "ipRules": []any{map[string]any{"value": "10.0.0.0/24", "action": "Allow"}}}})
	if err := e.cl.Create(ctx, in); err != nil {
		t.Fatal(err)
	}
	atOld := get(t, e.cl, ns, "legacy", older)
	atNew := get(t, e.cl, ns, "legacy", newer)
	back := get(t, e.cl, ns, "legacy", older)
	if !equalJSON(atOld.Object["spec"], atNew.Object["spec"]) || !equalJSON(atOld.Object["spec"], back.Object["spec"]) {
		t.Errorf("spec differs between versions:\n%s %v\n%s %v\n%s %v", older, atOld.Object["spec"], newer, atNew.Object["spec"], older, back.Object["spec"])
	}
}

func equalJSON(a, b any) bool {
	return strings.EqualFold(mustJSON(a), mustJSON(b))
}

func mustJSON(v any) string {
	b, _ := yaml.Marshal(v)
	return string(b)
}

// The reconciler speaks to ARM in the api-version of the version the spec
// was written in: a StorageAccount written at v20230101 is PUT with
// api-version=2023-01-01, one written at v20230501 with 2023-05-01.
func TestReconcileInWrittenVersion(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	ns := namespace(t, e.cl)
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1, RetryAfter: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = apis.AddToScheme(s)
	mgr, err := ctrl.NewManager(e.cfg, ctrl.Options{
		Scheme: s, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Client:     client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	armClient, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	if err := reconciler.SetupAll(mgr, armClient, apis.Descriptors(), reconciler.Config{SubscriptionID: subscription, PollInterval: 50 * time.Millisecond, SyncPeriod: time.Hour}); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(mctx) }()
	t.Cleanup(func() { cancel(); <-done })

	rg := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "resources.azure.armature.dev/v20240301", "kind": "ResourceGroup",
		"metadata": map[string]any{"name": "rg", "namespace": ns}, "spec": map[string]any{"location": "westeurope"}}}
	if err := e.cl.Create(ctx, rg); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"old1": "2023-01-01", "new1": "2023-05-01"}
	if err := e.cl.Create(ctx, account(ns, "old1", older, map[string]any{"accessTier": "Hot"})); err != nil {
		t.Fatal(err)
	}
	if err := e.cl.Create(ctx, account(ns, "new1", newer, map[string]any{"accessTier": "Hot", "enableExtendedGroups": true})); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for name := range want {
		for {
			u := get(t, e.cl, ns, name, newer)
			if ready(u) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not Ready: %v", name, u.Object["status"])
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for _, en := range fa.Journal() {
		if en.Method != http.MethodPut || !strings.Contains(en.Path, "/storageAccounts/") {
			continue
		}
		name := en.Path[strings.LastIndex(en.Path, "/")+1:]
		if v := want[name]; v != "" && !strings.Contains(en.Query, "api-version="+v) {
			t.Errorf("PUT %s with %s, want api-version=%s (the version its spec was written in)", en.Path, en.Query, v)
		}
		delete(want, name)
	}
	if len(want) > 0 {
		t.Errorf("no PUT seen for %v", want)
	}
}

func ready(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			return m["status"] == string(metav1.ConditionTrue)
		}
	}
	return false
}
