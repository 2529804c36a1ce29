package children_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/go-logr/logr"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	fabrikam "github.com/armature-dev/armature/generator/testdata/embedded/expected/apis/fabrikam/v20240501"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
)

const subscription = "00000000-0000-0000-0000-0000000000cc"

var (
	restCfg *rest.Config
	k8s     client.Client
	scheme  = runtime.NewScheme()
)

// descriptors are the kinds the suite serves: the generated ones and the
// golden case's.
func descriptors() []*descriptor.Descriptor {
	return append(apis.Descriptors(), fabrikam.Descriptors()...)
}

func TestMain(m *testing.M) {
	_ = corev1.AddToScheme(scheme)
	_ = apis.AddToScheme(scheme)
	_ = fabrikam.AddToScheme(scheme)
	log.SetLogger(logr.Discard())
	root := envtestutil.RepoRoot()
	env, c, err := envtestutil.Start(filepath.Join(root, "generated", "crds"), filepath.Join(root, "generator", "testdata", "embedded", "expected", "crds"))
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

// start runs an emulator and the operator (every reconciler, watching
// namespace ns) until the end of the test.
func start(t *testing.T, ns string, cfg reconciler.Config) *fakearm.Running {
	t.Helper()
	fa, err := fakearm.Start(descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1, RetryAfter: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	mgr := envtestutil.NewManager(t, restCfg, scheme, ns)
	armClient, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("test"), Transport: fa.HTTPClient(), MaxRetries: 5})
	if err != nil {
		t.Fatal(err)
	}
	cfg.SubscriptionID = subscription
	cfg.PollInterval = 50 * time.Millisecond
	if cfg.SyncPeriod == 0 {
		cfg.SyncPeriod = time.Hour
	}
	if cfg.FirstObservation == 0 {
		cfg.FirstObservation = time.Hour
	}
	if err := reconciler.SetupAll(mgr, armClient, descriptors(), cfg); err != nil {
		t.Fatal(err)
	}
	envtestutil.RunManager(t, mgr)
	return fa
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

// cr builds a custom resource of the kind a Descriptor describes.
func cr(d *descriptor.Descriptor, ns, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": d.Group + "/" + d.Version, "kind": d.Kind,
		"metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec,
	}}
}

// byType returns the served Descriptor of an ARM type, or nil.
func byType(armType string) *descriptor.Descriptor {
	for _, d := range descriptors() {
		if strings.EqualFold(d.ARMType, armType) && d.IsStorage() {
			return d
		}
	}
	return nil
}

func resourceGroup(ns, name string) *unstructured.Unstructured {
	return cr(byType(descriptor.ResourceGroupType), ns, name, map[string]any{"location": "westeurope"})
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

// update applies change to the stored object and writes it, retrying on
// conflicts with the operator's writes.
func update(t *testing.T, o *unstructured.Unstructured, change func(*unstructured.Unstructured)) {
	t.Helper()
	eventually(t, 10*time.Second, "update "+o.GetName(), func() (bool, string) {
		cur := get(t, o)
		change(cur)
		if err := k8s.Update(context.Background(), cur); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
}

// ready returns the Ready condition's status, reason and message, and
// whether it describes the object's current generation.
func ready(u *unstructured.Unstructured) (status, reason, message string, current bool) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			status, _ = m["status"].(string)
			reason, _ = m["reason"].(string)
			message, _ = m["message"].(string)
			g, _ := m["observedGeneration"].(int64)
			return status, reason, message, g == u.GetGeneration()
		}
	}
	return "", "", "", false
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

// waitReady waits until each object is Ready for its current generation.
func waitReady(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		eventually(t, 60*time.Second, o.GetKind()+" "+o.GetName()+" Ready", func() (bool, string) {
			s, r, m, cur := ready(get(t, o))
			return s == "True" && cur, r + " " + m
		})
	}
}

// statusID returns the object's status.id.
func statusID(t *testing.T, o *unstructured.Unstructured) string {
	t.Helper()
	id, _, _ := unstructured.NestedString(get(t, o).Object, "status", "id")
	return id
}

// armGET returns the status code of a GET of an id in the emulator (the
// request goes through its handler, as the operator's do).
func armGET(t *testing.T, fa *fakearm.Running, id, apiVersion string) int {
	t.Helper()
	return armDo(t, fa, http.MethodGet, id, apiVersion, "")
}

// armDo sends a request to the emulator, as someone else than the operator
// (the portal), and returns the status code.
func armDo(t *testing.T, fa *fakearm.Running, method, id, apiVersion, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, fa.URL+id+"?api-version="+apiVersion, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer test")
	resp, err := fa.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// removals returns, from the emulator's journal, every DELETE below prefix
// and every child a write removed (Entry.Removed) below it.
func removals(fa *fakearm.Running, prefix string) []string {
	var out []string
	for _, e := range fa.Journal() {
		if e.Method == "DELETE" && strings.HasPrefix(strings.ToLower(e.Path), strings.ToLower(prefix)) {
			out = append(out, "DELETE "+e.Path)
		}
		for _, r := range e.Removed {
			if strings.HasPrefix(strings.ToLower(r), strings.ToLower(prefix)) {
				out = append(out, e.Method+" "+e.Path+" removed "+r)
			}
		}
	}
	slices.Sort(out)
	return out
}

// writes returns the journaled PUT and PATCH requests on an exact path.
func writes(fa *fakearm.Running, path string) []fakearm.Entry {
	var out []fakearm.Entry
	for _, e := range fa.Journal() {
		if (e.Method == "PUT" || e.Method == "PATCH") && strings.EqualFold(e.Path, path) {
			out = append(out, e)
		}
	}
	return out
}
