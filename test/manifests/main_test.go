package manifests

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/armature-dev/armature/test/envtestutil"
)

// fieldOwner is the field manager of every apply of the suite.
const fieldOwner = "armature-manifests-test"

var (
	restCfg *rest.Config
	k8s     client.Client
	scheme  = runtime.NewScheme()
	// warnings collects the apiserver's warnings (Pod Security and
	// deprecations) per object, for tests that require none.
	warnings = &warningLog{}
)

func TestMain(m *testing.M) {
	// The operators the tests run log nowhere (their outcome is asserted)
	// unless ARMATURE_TEST_LOG is set.
	if os.Getenv("ARMATURE_TEST_LOG") != "" {
		ctrllog.SetLogger(zap.New(zap.UseDevMode(true)))
	} else {
		ctrllog.SetLogger(logr.Discard())
	}
	_ = clientgoscheme.AddToScheme(scheme)
	_ = apiextensionsv1.AddToScheme(scheme)
	env, c, err := envtestutil.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtest:", err)
		os.Exit(1)
	}
	restCfg = rest.CopyConfig(c)
	restCfg.WarningHandler = warnings
	if k8s, err = envtestutil.Client(restCfg, client.Options{Scheme: scheme}); err == nil {
		err = installCertManagerCRDs(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = env.Stop()
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

// warningLog records the apiserver's warnings.
type warningLog struct {
	mu   sync.Mutex
	list []string
}

func (w *warningLog) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// since returns the warnings after the first n.
func (w *warningLog) since(n int) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list[n:]...)
}

func (w *warningLog) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.list)
}

// installCertManagerCRDs installs stand-ins for cert-manager's Issuer and
// Certificate kinds: same group, version, names and scope, any content.
func installCertManagerCRDs(ctx context.Context) error {
	for _, k := range []struct{ kind, plural string }{{"Issuer", "issuers"}, {"Certificate", "certificates"}} {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		crd.Name = k.plural + ".cert-manager.io"
		crd.Spec = apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "cert-manager.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: k.kind, ListKind: k.kind + "List", Plural: k.plural, Singular: strings.ToLower(k.kind)},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptrTo(true),
				}},
			}},
		}
		if err := k8s.Create(ctx, crd); err != nil {
			return fmt.Errorf("install the %s stand-in CRD: %w", k.kind, err)
		}
		if err := waitEstablished(ctx, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

func ptrTo[T any](v T) *T { return &v }

// waitEstablished waits until the CRD is served.
func waitEstablished(ctx context.Context, name string) error {
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, &crd); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}

// applied counts what apply did.
type applied struct {
	created, dryRun int
	kinds           map[string]int
}

var (
	crdGK       = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	namespaceGK = schema.GroupKind{Kind: "Namespace"}
)

// apply applies objs to the apiserver: CRDs and Namespaces for real (the
// objects that need them cannot be dry-run before; a CRD's conversion
// webhook only by dry-run), everything else by server-side apply with
// dry-run. Namespaced objects without a namespace
// go into defaultNS. Every refusal is a test error naming the object.
func apply(t *testing.T, objs []*unstructured.Unstructured, defaultNS string) applied {
	t.Helper()
	ctx := context.Background()
	res := applied{kinds: map[string]int{}}
	var rest []*unstructured.Unstructured
	for _, o := range objs {
		res.kinds[o.GetKind()]++
		gk := o.GroupVersionKind().GroupKind()
		if gk != crdGK && gk != namespaceGK {
			rest = append(rest, o)
			continue
		}
		// A CRD converting through a webhook is created without it (no
		// operator serves /convert here, and the objects dry-run later
		// would need it), then dry-run with it.
		real := o.DeepCopy()
		_, converts, _ := unstructured.NestedMap(real.Object, "spec", "conversion", "webhook")
		unstructured.RemoveNestedField(real.Object, "spec", "conversion")
		if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(real), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
			t.Errorf("apply %s %s: %v", o.GetKind(), o.GetName(), err)
			continue
		}
		res.created++
		if gk == crdGK {
			if err := waitEstablished(ctx, o.GetName()); err != nil {
				t.Errorf("CRD %s not established: %v", o.GetName(), err)
			}
		}
		if converts {
			if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), client.FieldOwner(fieldOwner), client.ForceOwnership, client.DryRunAll); err != nil {
				t.Errorf("dry-run apply %s %s with its conversion webhook: %v", o.GetKind(), o.GetName(), err)
			}
		}
	}
	for _, o := range rest {
		o = o.DeepCopy()
		namespaced, err := k8s.IsObjectNamespaced(o)
		if err != nil {
			t.Errorf("%s %s: %v", o.GetKind(), o.GetName(), err)
			continue
		}
		if namespaced && o.GetNamespace() == "" {
			o.SetNamespace(defaultNS)
		}
		if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(o), client.FieldOwner(fieldOwner), client.ForceOwnership, client.DryRunAll); err != nil {
			t.Errorf("dry-run apply %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
			continue
		}
		res.dryRun++
	}
	return res
}

// ensureNamespace creates a namespace unless it exists.
func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	if err := k8s.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// find returns the built objects of a kind (and name, when not empty).
func find(objs []*unstructured.Unstructured, kind, name string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind && (name == "" || o.GetName() == name) {
			out = append(out, o)
		}
	}
	return out
}

// one returns the only built object of a kind and name.
func one(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	found := find(objs, kind, name)
	if len(found) != 1 {
		t.Fatalf("want one %s %q, found %d", kind, name, len(found))
	}
	return found[0]
}
