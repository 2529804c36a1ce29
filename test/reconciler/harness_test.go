package reconciler_test

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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
	"github.com/go-logr/logr"
)

const subscription = "00000000-0000-0000-0000-0000000000aa"

var (
	restCfg *rest.Config
	// kubeconfig reaches the apiserver from another process.
	kubeconfig []byte
	k8s        client.Client
	scheme     = runtime.NewScheme()
)

func TestMain(m *testing.M) {
	_ = corev1.AddToScheme(scheme)
	_ = admissionregistrationv1.AddToScheme(scheme)
	_ = apis.AddToScheme(scheme)
	// The tests read the reconciler's metrics from controller-runtime's
	// registry, where operator.Run registers them.
	if err := reconciler.RegisterMetrics(ctrlmetrics.Registry); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if os.Getenv("ARMATURE_TEST_LOG") != "" {
		log.SetLogger(zap.New(zap.UseDevMode(true)))
	} else {
		log.SetLogger(logr.Discard()) // no "log.SetLogger(...) was never called" stack in test and bench output
	}
	env, c, err := envtestutil.Start(filepath.Join(envtestutil.RepoRoot(), "generated", "crds"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtest:", err)
		os.Exit(1)
	}
	restCfg, kubeconfig = c, env.KubeConfig
	if k8s, err = envtestutil.Client(restCfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

// operator is a running manager with every reconciler, against an emulator.
type operator struct {
	arm  *fakearm.Running
	stop func() // stops the manager (also done when the test ends)
}

// startARM starts an emulator that answers LROs after polls polls.
func startARM(t *testing.T, polls int) *fakearm.Running {
	t.Helper()
	r, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: polls, RetryAfter: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// startOperator runs the manager until stop or the end of the test.
// It watches only namespace ns, as --watch-namespaces does.
func startOperator(t *testing.T, fa *fakearm.Running, ns string, cfg reconciler.Config, opts ...reconciler.SetupOption) *operator {
	t.Helper()
	mgr := envtestutil.NewManager(t, restCfg, scheme, ns)
	armClient, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("test"), Transport: fa.HTTPClient(), MaxRetries: 5})
	if err != nil {
		t.Fatal(err)
	}
	cfg.SubscriptionID = subscription
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 50 * time.Millisecond
	}
	if cfg.SyncPeriod == 0 {
		cfg.SyncPeriod = time.Hour
	}
	if cfg.FirstObservation == 0 {
		cfg.FirstObservation = time.Hour // tests that watch the drift observer set it
	}
	if err := reconciler.SetupAll(mgr, armClient, apis.Descriptors(), cfg, opts...); err != nil {
		t.Fatal(err)
	}
	return &operator{arm: fa, stop: envtestutil.RunManager(t, mgr)}
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

// cr builds a custom resource of a generated kind.
func cr(kind, apiVersion, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
	return u
}

const (
	resourcesAPI = "resources.azure.armature.dev/v20240301"
	storageAPI   = "storage.azure.armature.dev/v20230501"
)

func resourceGroup(ns, name string) *unstructured.Unstructured {
	return cr("ResourceGroup", resourcesAPI, ns, name, map[string]any{"location": "westeurope"})
}

func storageAccount(ns, name, owner string) *unstructured.Unstructured {
	return cr("StorageAccount", storageAPI, ns, name, map[string]any{
		"owner": map[string]any{"name": owner}, "location": "westeurope", "kind": "StorageV2",
		"sku": map[string]any{"name": "Standard_LRS"}, "properties": map[string]any{"accessTier": "Hot"},
	})
}

func create(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if err := k8s.Create(context.Background(), o); err != nil {
			t.Fatalf("create %s %s: %v", o.GetKind(), o.GetName(), err)
		}
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

// readyReason returns the Ready condition's status and reason.
func readyReason(u *unstructured.Unstructured) (string, string, string) {
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

// eventually polls cond until it holds or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s; last: %s", what, timeout, last)
}

func waitReady(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		eventually(t, 30*time.Second, o.GetKind()+" "+o.GetName()+" Ready", func() (bool, string) {
			s, r, m := readyReason(get(t, o))
			return s == "True", r + " " + m
		})
	}
}

func waitReason(t *testing.T, o *unstructured.Unstructured, reason string) {
	t.Helper()
	eventually(t, 30*time.Second, o.GetKind()+" "+o.GetName()+" reason "+reason, func() (bool, string) {
		s, r, m := readyReason(get(t, o))
		return r == reason, s + " " + r + " " + m
	})
}

// calls counts the journal entries for a method on an ARM id (exact path).
func calls(fa *fakearm.Running, method, id string) int {
	n := 0
	for _, e := range fa.Journal() {
		if e.Method == method && strings.EqualFold(e.Path, id) {
			n++
		}
	}
	return n
}

func armID(rg string, rest ...string) string {
	id := "/subscriptions/" + subscription + "/resourceGroups/" + rg
	if len(rest) > 0 {
		id += "/providers/" + strings.Join(rest, "/")
	}
	return id
}
