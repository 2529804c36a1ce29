package playback_test

import (
	"context"
	"fmt"
	"github.com/go-logr/logr"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
)

// subscription is the one ASO's redaction leaves in every recording.
const subscription = "00000000-0000-0000-0000-000000000000"

var (
	restCfg *rest.Config
	k8s     client.Client
	scheme  = runtime.NewScheme()
)

func TestMain(m *testing.M) {
	_ = corev1.AddToScheme(scheme)
	_ = apis.AddToScheme(scheme)
	if os.Getenv("ARMATURE_TEST_LOG") != "" {
		log.SetLogger(zap.New(zap.UseDevMode(true)))
	} else {
		log.SetLogger(logr.Discard()) // no "log.SetLogger(...) was never called" stack in the output
	}
	env, c, err := envtestutil.Start(filepath.Join(envtestutil.RepoRoot(), "generated", "crds"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtest:", err)
		os.Exit(1)
	}
	restCfg = c
	if k8s, err = envtestutil.Client(restCfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

// startOperator runs every reconciler against an ARM endpoint until the
// end of the test, watching namespace ns.
func startOperator(t *testing.T, ep *fakearm.Endpoint, ns string) {
	t.Helper()
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	armClient, err := arm.NewClient(arm.Options{Endpoint: ep.URL, Credential: arm.StaticToken("test"), Transport: ep.HTTPClient(), MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	cfg := reconciler.Config{SubscriptionID: subscription, PollInterval: 50 * time.Millisecond, SyncPeriod: time.Hour}
	if err := reconciler.SetupAll(mgr, armClient, apis.Descriptors(), cfg); err != nil {
		t.Fatal(err)
	}
	envtestutil.RunManager(t, mgr)
}

func namespace(t *testing.T) string {
	t.Helper()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-", ".", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: strings.Trim(name, "-") + "-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// readyOf returns the Ready condition's status, reason and message.
func readyOf(u *unstructured.Unstructured) (string, string, string) {
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

// current reads an object; nil when it is gone.
func current(t *testing.T, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(o.GroupVersionKind())
	err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), cur)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("get %s %s: %v", o.GetKind(), o.GetName(), err)
	}
	return cur
}

// eventually polls cond until it holds or the timeout passes; it returns
// false (after reporting) when it did not.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return true
		}
		last = state
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("%s: not within %s; last: %s", what, timeout, last)
	return false
}
