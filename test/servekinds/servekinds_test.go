package servekinds

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
)

const subscription = "00000000-0000-0000-0000-000000000001"

var (
	restCfg *rest.Config
	k8s     client.Client
	logged  struct {
		sync.Mutex
		lines []string
	}
)

// logCount counts the log lines holding every one of parts.
func logCount(parts ...string) int {
	logged.Lock()
	defer logged.Unlock()
	n := 0
	for _, l := range logged.lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			n++
		}
	}
	return n
}

func TestMain(m *testing.M) {
	// The operator's log lines are kept: the test reads which kinds it
	// started and stopped serving.
	log.SetLogger(funcr.New(func(prefix, args string) {
		logged.Lock()
		logged.lines = append(logged.lines, prefix+" "+args)
		logged.Unlock()
		if os.Getenv("ARMATURE_TEST_LOG") != "" {
			fmt.Fprintln(os.Stderr, prefix, args)
		}
	}, funcr.Options{}))
	// No CRD at the start: the operator starts with none of its kinds.
	env, c, err := envtestutil.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtest:", err)
		os.Exit(1)
	}
	restCfg = c
	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = apiextensionsv1.AddToScheme(scheme)
	if k8s, err = envtestutil.Client(restCfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

// TestServeCRDsAsTheyCome: the operator runs with no CRD installed; the
// ResourceGroup and StorageAccount CRDs are installed after it started and
// objects of both become Ready; the StorageAccount CRD is deleted (after
// its objects) and installed again, and a new account becomes Ready: the
// kind was stopped and served again, in one process.
func TestServeCRDsAsTheyCome(t *testing.T) {
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1, RetryAfter: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "servekinds-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- operator.Run(ctx, restCfg, operator.Config{
			Reconciler:  reconciler.Config{SubscriptionID: subscription, PollInterval: 50 * time.Millisecond},
			ARMEndpoint: fa.URL, ARMCAFile: ca, ARMToken: "t",
			WatchNamespaces: []string{ns.Name}, DefaultCredentialNamespaces: []string{ns.Name},
			Kinds:       "resources.*/ResourceGroup,storage.*/StorageAccount",
			MetricsAddr: "0", ProbeAddr: "0", SkipNameValidation: true,
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("operator.Run: %v", err)
		}
	})
	select {
	case err := <-done:
		t.Fatalf("the operator stopped with no CRD installed: %v", err)
	case <-time.After(2 * time.Second):
	}

	installCRD(t, "resources.azure.armature.dev_resourcegroups.yaml")
	account := installCRD(t, "storage.azure.armature.dev_storageaccounts.yaml")
	rg := object("resources.azure.armature.dev/v20240301", "ResourceGroup", ns.Name, "served", map[string]any{"location": "westeurope"})
	create(t, rg)
	sa := storageAccount(ns.Name, "served01")
	create(t, sa)
	waitReady(t, rg)
	waitReady(t, sa)

	// The CRD goes: its objects first (their finalizers run while the
	// kind is served), then the CRD itself.
	if err := k8s.Delete(context.Background(), sa); err != nil {
		t.Fatal(err)
	}
	waitGone(t, sa)
	if fa.Count("DELETE") == 0 {
		t.Error("the account's DELETE never reached ARM: its finalizer was not run by the operator")
	}
	if err := k8s.Delete(context.Background(), account); err != nil {
		t.Fatal(err)
	}
	waitGone(t, account)
	eventually(t, 30*time.Second, "the operator stops serving StorageAccount", func() (bool, string) {
		return logCount("no longer serving kind", "StorageAccount.storage.azure.armature.dev") == 1, "not logged"
	})

	// And comes back: served again without a restart.
	installCRD(t, "storage.azure.armature.dev_storageaccounts.yaml")
	again := storageAccount(ns.Name, "served02")
	create(t, again)
	waitReady(t, again)
	if n := logCount(`"serving kind"`, "StorageAccount.storage.azure.armature.dev"); n != 2 {
		t.Errorf("StorageAccount served %d times, want 2 (installed, then installed again)", n)
	}
}

// installCRD creates the CRD of generated/crds/file and waits until it is
// established.
func installCRD(t *testing.T, file string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(envtestutil.RepoRoot(), "generated", "crds", file))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(b, crd); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(context.Background(), crd); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "CRD "+crd.Name+" established", func() (bool, string) {
		cur := &apiextensionsv1.CustomResourceDefinition{}
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(crd), cur); err != nil {
			return false, err.Error()
		}
		for _, c := range cur.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, ""
			}
		}
		return false, "not established"
	})
	return crd
}

func object(apiVersion, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "spec": spec}}
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func storageAccount(ns, name string) *unstructured.Unstructured {
	return object("storage.azure.armature.dev/v20230501", "StorageAccount", ns, name, map[string]any{
		"owner": map[string]any{"name": "served"}, "location": "westeurope", "kind": "StorageV2",
		"sku": map[string]any{"name": "Standard_LRS"},
	})
}

// create creates o, again while the apiserver does not serve its kind yet
// (a CRD just established can take a moment to reach every handler).
func create(t *testing.T, o *unstructured.Unstructured) {
	t.Helper()
	eventually(t, 30*time.Second, "create "+o.GetKind()+" "+o.GetName(), func() (bool, string) {
		err := k8s.Create(context.Background(), o.DeepCopy())
		return err == nil, fmt.Sprint(err)
	})
}

func waitReady(t *testing.T, o *unstructured.Unstructured) {
	t.Helper()
	eventually(t, 60*time.Second, o.GetKind()+" "+o.GetName()+" Ready", func() (bool, string) {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(o.GroupVersionKind())
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), cur); err != nil {
			return false, err.Error()
		}
		conds, _, _ := unstructured.NestedSlice(cur.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Ready" {
				return m["status"] == "True", fmt.Sprint(m["reason"], " ", m["message"])
			}
		}
		return false, "no Ready condition"
	})
}

func waitGone(t *testing.T, o client.Object) {
	t.Helper()
	eventually(t, 60*time.Second, "gone: "+o.GetName(), func() (bool, string) {
		cur := o.DeepCopyObject().(client.Object)
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), cur)
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
}

func eventually(t *testing.T, limit time.Duration, what string, f func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	var last string
	for time.Now().Before(deadline) {
		ok, why := f()
		if ok {
			return
		}
		last = why
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s: %s", what, limit, strings.TrimSpace(last))
}
