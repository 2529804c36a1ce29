package webhook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/generated/apis"
	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	contoso "github.com/armature-dev/armature/generator/testdata/contoso/expected/apis/contoso/v20240101preview"
	"github.com/armature-dev/armature/test/envtestutil"
	hook "github.com/armature-dev/armature/webhook"
)

// setup says what an environment installs.
type setup struct {
	// webhook installs the generated webhook configurations and serves the
	// handlers from a controller-runtime manager.
	webhook bool
	// cel keeps the CRDs' x-kubernetes-validations; false strips them.
	cel bool
	// opts are passed to the webhook registry.
	opts []hook.Option
	// contoso also installs the generator's contoso golden case (its CRDs
	// and Descriptors): a property named odata.type.
	contoso bool
}

// env is a running apiserver, and the webhook when installed.
type env struct {
	cl client.Client
}

// scheme knows client-go's kinds and every generated kind.
func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// start starts an apiserver with the generated CRDs and, if asked, the
// webhook; everything stops when the test ends.
func start(t *testing.T, s setup) *env {
	t.Helper()
	assets, err := envtestutil.Assets()
	if err != nil {
		t.Fatal(err)
	}
	crds := loadCRDs(t, filepath.Join(envtestutil.RepoRoot(), "generated", "crds"), !s.cel)
	ds := apis.Descriptors()
	if s.contoso {
		crds = append(crds, loadCRDs(t, filepath.Join(envtestutil.RepoRoot(), "generator", "testdata", "contoso", "expected", "crds"), !s.cel)...)
		ds = append(ds, contoso.Descriptors()...)
	}
	te := &envtest.Environment{BinaryAssetsDirectory: assets, CRDs: crds}
	if s.webhook {
		v := hook.ValidatingWebhookConfiguration(ds)
		m := hook.MutatingWebhookConfiguration(ds)
		forEnvtest(v.Webhooks[0].ClientConfig.Service, m.Webhooks[0].ClientConfig.Service)
		te.WebhookInstallOptions = envtest.WebhookInstallOptions{
			ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{v},
			MutatingWebhooks:   []*admissionregistrationv1.MutatingWebhookConfiguration{m},
			LocalServingHost:   "127.0.0.1",
		}
	}
	cfg, err := te.Start()
	if err != nil {
		t.Fatalf("start envtest with %s: %v", assets, err)
	}
	t.Cleanup(func() {
		if err := te.Stop(); err != nil {
			t.Logf("stop envtest: %v", err)
		}
	})
	cfg.QPS, cfg.Burst = 500, 1000
	scheme := newScheme(t)
	cl, err := envtestutil.Client(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if s.webhook {
		wio := &te.WebhookInstallOptions
		mgr, err := manager.New(cfg, manager.Options{
			Scheme:                 scheme,
			Metrics:                metricsserver.Options{BindAddress: "0"},
			HealthProbeBindAddress: "0",
			WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{
				Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir,
			}),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := hook.Setup(mgr, hook.New(ds, s.opts...)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- mgr.Start(ctx) }()
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Logf("manager: %v", err)
			}
		})
		waitForWebhook(t, cl, mgr)
	}
	return &env{cl: cl}
}

// forEnvtest adapts the generated Service references to envtest, which
// turns them into https://host:port/<path> and so needs the path without
// its leading slash (the apiserver requires one).
func forEnvtest(svcs ...*admissionregistrationv1.ServiceReference) {
	for _, s := range svcs {
		p := strings.TrimPrefix(*s.Path, "/")
		s.Path = &p
	}
}

// loadCRDs reads the CRDs of a folder (generated/crds), optionally without
// any x-kubernetes-validations.
func loadCRDs(t *testing.T, dir string, stripCEL bool) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s: %v", dir, err)
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(b, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if stripCEL {
			for i := range crd.Spec.Versions {
				if v := crd.Spec.Versions[i].Schema; v != nil {
					stripValidations(v.OpenAPIV3Schema)
				}
			}
		}
		out = append(out, crd)
	}
	return out
}

// stripValidations removes every x-kubernetes-validations rule.
func stripValidations(s *apiextensionsv1.JSONSchemaProps) {
	if s == nil {
		return
	}
	s.XValidations = nil
	for k, p := range s.Properties {
		stripValidations(&p)
		s.Properties[k] = p
	}
	if s.Items != nil {
		stripValidations(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		stripValidations(s.AdditionalProperties.Schema)
	}
}

// waitForWebhook waits until the server is up and the apiserver calls
// both handlers: a dry-run create gets azureName defaulted, and one with an
// owner of the wrong kind is refused by the webhook.
func waitForWebhook(t *testing.T, cl client.Client, mgr manager.Manager) {
	t.Helper()
	ctx := context.Background()
	ns := namespace(t, cl, "probe")
	deadline := time.Now().Add(60 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		if err := mgr.GetWebhookServer().StartedChecker()(nil); err != nil {
			last = err
		} else {
			last = probe(ctx, cl, ns)
			if last == nil {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the webhook is not called by the apiserver after 60s: %v", last)
}

func probe(ctx context.Context, cl client.Client, ns string) error {
	sa := account(ns, "probe")
	sa.Spec.AzureName = ""
	if err := cl.Create(ctx, sa, client.DryRunAll); err != nil {
		return fmt.Errorf("dry-run create: %w", err)
	}
	if sa.Spec.AzureName != "probe" {
		return errors.New("the defaulting webhook is not called yet")
	}
	bad := account(ns, "probe")
	bad.Spec.Owner.Name, bad.Spec.Owner.ARMID = "", "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/x"
	err := cl.Create(ctx, bad, client.DryRunAll)
	if err == nil || !strings.Contains(err.Error(), "denied the request") {
		return fmt.Errorf("the validating webhook is not called yet: %v", err)
	}
	return nil
}

// namespace creates a namespace.
func namespace(t *testing.T, cl client.Client, name string) string {
	t.Helper()
	if err := cl.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

func ptr[T any](v T) *T { return &v }

// account is the StorageAccount of the issue: media in westeurope.
func account(ns, name string) *storage.StorageAccount {
	return &storage.StorageAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: storage.StorageAccountSpec{
			AzureName: name,
			Owner:     &core.ResourceReference{Name: "team-a-rg"},
			Location:  ptr("westeurope"),
			Kind:      ptr(storage.Kind_StorageV2),
			Sku:       &storage.Sku{Name: ptr(storage.SkuName_Standard_LRS)},
			Properties: &storage.StorageAccountPropertiesCreateParameters{
				AccessTier:   ptr(storage.AccessTier_Hot),
				IsHnsEnabled: ptr(true),
			},
		},
	}
}
