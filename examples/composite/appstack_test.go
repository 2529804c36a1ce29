package composite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/configurator"
	"github.com/armature-dev/armature/test/envtestutil"
)

var (
	cfg    *rest.Config
	cl     client.Client
	scheme = runtime.NewScheme()
)

func TestMain(m *testing.M) {
	logf.SetLogger(logr.Discard())
	env, c, err := envtestutil.Start(filepath.Join(envtestutil.RepoRoot(), "generated", "crds"), "crd.yaml")
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtest:", err)
		os.Exit(1)
	}
	cfg = c
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, apis.AddToScheme} {
		if err := add(scheme); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if cl, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop envtest:", err)
	}
	os.Exit(code)
}

// view is the part of an AppStack's status the test follows.
type view struct {
	Ready   bool
	Summary string
}

// TestAppStack runs the AppStack on a real apiserver: it declares the
// three storage resources with their owner chain, and its status follows
// their Ready conditions (set here as the generic reconciler would) and
// the group's; a new container name replaces the container.
func TestAppStack(t *testing.T) {
	ctx := context.Background()
	ns := "appstack"
	if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	create(t, obj(resourceGroupGVK, ns, "rg", map[string]any{"location": "westeurope"}),
		obj(GVK, ns, "stack", map[string]any{"resourceGroup": "rg", "storageAccountName": "stackacct01"}))
	startRegistry(t, ns)

	for _, n := range []struct {
		gvk  schema.GroupVersionKind
		name string
	}{{accountGVK, "stackacct01"}, {blobServiceGVK, "stackacct01-default"}, {containerGVK, "stackacct01-data"}} {
		eventually(t, n.name, func() bool { return get(n.gvk, ns, n.name) != nil })
	}
	stack := get(GVK, ns, "stack")
	t.Run("Declared", func(t *testing.T) {
		type decl struct {
			Owner, AzureName, Location, Controller string
		}
		got := map[string]decl{}
		for _, n := range []struct {
			gvk  schema.GroupVersionKind
			name string
		}{{accountGVK, "stackacct01"}, {blobServiceGVK, "stackacct01-default"}, {containerGVK, "stackacct01-data"}} {
			u := get(n.gvk, ns, n.name)
			d := decl{}
			d.Owner, _, _ = unstructured.NestedString(u.Object, "spec", "owner", "name")
			d.AzureName, _, _ = unstructured.NestedString(u.Object, "spec", "azureName")
			d.Location, _, _ = unstructured.NestedString(u.Object, "spec", "location")
			if c := metav1.GetControllerOf(u); c != nil && c.UID == stack.GetUID() {
				d.Controller = c.Kind + "/" + c.Name
			}
			got[n.name] = d
		}
		want := map[string]decl{
			"stackacct01":         {Owner: "rg", AzureName: "stackacct01", Location: "westeurope", Controller: "AppStack/stack"},
			"stackacct01-default": {Owner: "stackacct01", AzureName: "default", Controller: "AppStack/stack"},
			"stackacct01-data":    {Owner: "stackacct01-default", AzureName: "data", Controller: "AppStack/stack"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("-want +got:\n%s", diff)
		}
	})

	steps := []struct {
		name   string
		change func(t *testing.T)
		want   view
	}{
		{"declared, nothing Ready", func(*testing.T) {},
			view{Summary: "0/3 ready; waiting for ResourceGroup rg (not Ready), StorageAccount stackacct01 (not Ready), StorageAccountsBlobService stackacct01-default (not Ready), StorageAccountsBlobServicesContainer stackacct01-data (not Ready)"}},
		{"group and account Ready", func(t *testing.T) {
			setReady(t, resourceGroupGVK, ns, "rg", true)
			setReady(t, accountGVK, ns, "stackacct01", true)
		}, view{Summary: "1/3 ready; waiting for StorageAccountsBlobService stackacct01-default (not Ready), StorageAccountsBlobServicesContainer stackacct01-data (not Ready)"}},
		{"all Ready", func(t *testing.T) {
			setReady(t, blobServiceGVK, ns, "stackacct01-default", true)
			setReady(t, containerGVK, ns, "stackacct01-data", true)
		}, view{Ready: true, Summary: "3/3 ready"}},
		{"container fails", func(t *testing.T) { setReady(t, containerGVK, ns, "stackacct01-data", false) },
			view{Summary: "2/3 ready; waiting for StorageAccountsBlobServicesContainer stackacct01-data (NotReady)"}},
		{"container renamed", func(t *testing.T) {
			mutate(t, GVK, ns, "stack", false, func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "logs", "spec", "containerName")
			})
		}, view{Summary: "2/3 ready; waiting for StorageAccountsBlobServicesContainer stackacct01-logs (not Ready)"}},
	}
	for _, s := range steps {
		s.change(t)
		var got view
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			u := get(GVK, ns, "stack")
			got.Ready, _, _ = unstructured.NestedBool(u.Object, "status", "ready")
			got.Summary, _, _ = unstructured.NestedString(u.Object, "status", "summary")
			if got == s.want {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s: status: -want +got:\n%s", s.name, diff)
		}
	}
	eventually(t, "the old container to be pruned", func() bool { return get(containerGVK, ns, "stackacct01-data") == nil })
	if get(containerGVK, ns, "stackacct01-logs") == nil {
		t.Error("the new container was not declared")
	}
}

func startRegistry(t *testing.T, ns string) {
	t.Helper()
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := configurator.SetupWithManager(mgr)
	if err != nil {
		t.Fatal(err)
	}
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
}

func obj(gvk schema.GroupVersionKind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func create(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if err := cl.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
}

func get(gvk schema.GroupVersionKind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		return nil
	}
	return u
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func mutate(t *testing.T, gvk schema.GroupVersionKind, ns, name string, status bool, f func(u *unstructured.Unstructured)) {
	t.Helper()
	for range 10 {
		u := get(gvk, ns, name)
		if u == nil {
			t.Fatalf("%s %s/%s not found", gvk.Kind, ns, name)
		}
		f(u)
		var err error
		if status {
			err = cl.Status().Update(context.Background(), u)
		} else {
			err = cl.Update(context.Background(), u)
		}
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatal(err)
		}
	}
	t.Fatalf("update %s/%s: too many conflicts", ns, name)
}

// setReady sets the Ready condition as the generic reconciler would.
func setReady(t *testing.T, gvk schema.GroupVersionKind, ns, name string, ready bool) {
	t.Helper()
	status, reason := "False", "NotReady"
	if ready {
		status, reason = "True", "Succeeded"
	}
	mutate(t, gvk, ns, name, true, func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{
			"type": "Ready", "status": status, "reason": reason, "message": "",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}}, "status", "conditions")
	})
}
