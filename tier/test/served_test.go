package test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
	tierapis "github.com/armature-dev/armature/tier/apis"
)

const (
	namespace    = "default"
	subscription = "00000000-0000-0000-0000-0000000000a1"
	// settle is how long the apiserver is left alone before its memory is
	// read: installing CRDs starts work (OpenAPI aggregation, CEL
	// compilation) that goes on after they are Established.
	settle = 20 * time.Second
)

// object is one custom resource the test applies: a kind of the tier (or
// the curated ResourceGroup), its name, its owner's name and its spec
// beside azureName and owner.
type object struct {
	group, kind, name, owner string
	spec                     map[string]any
}

// objects are a resource group and six objects of three providers of the
// generated tier: Maps, Relay (a namespace, a hybrid connection in it and
// an authorization rule of that: three levels of owners) and Notification
// Hubs (a namespace and a hub in it). Their specs follow the providers'
// x-ms-examples.
var objects = []object{
	{group: "resources", kind: "ResourceGroup", name: "tier-rg", spec: map[string]any{"location": "westeurope"}},
	{group: "maps", kind: "Account", name: "tier-maps", owner: "tier-rg", spec: map[string]any{
		"location": "eastus", "kind": "Gen2", "sku": map[string]any{"name": "G2"}}},
	{group: "relay", kind: "Namespace", name: "tier-relay", owner: "tier-rg", spec: map[string]any{
		"location": "westeurope", "sku": map[string]any{"name": "Standard", "tier": "Standard"}}},
	{group: "relay", kind: "NamespacesHybridConnection", name: "tier-relay-hc", owner: "tier-relay", spec: map[string]any{
		"properties": map[string]any{"requiresClientAuthorization": true}}},
	{group: "relay", kind: "NamespacesHybridConnectionsAuthorizationRule", name: "tier-relay-hc-listen", owner: "tier-relay-hc", spec: map[string]any{
		"properties": map[string]any{"rights": []any{"Listen"}}}},
	{group: "notificationhubs", kind: "Namespace", name: "tier-nh", owner: "tier-rg", spec: map[string]any{
		"location": "westeurope", "sku": map[string]any{"name": "Free"}}},
	{group: "notificationhubs", kind: "NamespacesNotificationHub", name: "tier-nh-hub", owner: "tier-nh", spec: map[string]any{
		"location": "westeurope", "properties": map[string]any{}}},
}

func TestTierServed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the apiserver's memory in /proc")
	}
	root := envtestutil.RepoRoot()
	generated := filepath.Join(root, "config", "crd", "generated")
	if _, err := os.Stat(filepath.Join(generated, "kustomization.yaml")); err != nil {
		t.Skipf("the generated tier is absent (%v): make crds generates it from the wide corpus, make tier-test runs both", err)
	}
	dirs, files, tierFiles := crdFolders(t, filepath.Join(root, "config", "crd"), generated)
	kinds := descriptors()
	logs := operatorLog(t)

	env, cfg, err := envtestutil.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	pid, err := envtestutil.APIServerPID(env)
	if err != nil {
		t.Fatal(err)
	}

	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = apiextv1.AddToScheme(c.Scheme())
	crds := readCRDs(t, dirs)
	start := time.Now()
	created, refused := create(c, crds)
	established := waitEstablished(t, c, created)
	install := time.Since(start)
	for _, r := range refused {
		t.Errorf("the apiserver refuses a CRD: %s", r)
	}
	time.Sleep(settle)
	status := fmt.Sprintf("/proc/%d/status", pid)
	t.Logf("CRDs: %d files of config/crd (%d curated, %d of the generated tier), %d created, %d refused, %d Established, all in %s; apiserver RSS %.0f MiB (peak %.0f MiB) %s later",
		files, files-tierFiles, tierFiles, len(created), len(refused), established, install.Round(time.Millisecond),
		envtestutil.ProcStatusMiB(status, "VmRSS:"), envtestutil.ProcStatusMiB(status, "VmHWM:"), settle)

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	token := newToken()
	fa, err := fakearm.Start(kinds, fakearm.StartOptions{Options: fakearm.Options{LROPolls: 2, RetryAfter: -1, Token: token}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	caFile := filepath.Join(t.TempDir(), "arm-ca.pem")
	if err := os.WriteFile(caFile, fa.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	opStart := time.Now()
	go func() {
		done <- operator.Run(ctx, cfg, operator.Config{
			Reconciler:                  reconciler.Config{SubscriptionID: subscription, PollInterval: 300 * time.Millisecond},
			ARMEndpoint:                 fa.URL,
			ARMCAFile:                   caFile,
			ARMToken:                    token,
			DefaultCredentialNamespaces: []string{namespace},
			MetricsAddr:                 "0",
			ProbeAddr:                   "0",
		}, operator.WithKinds(operator.Kinds{Descriptors: tierapis.Descriptors(), AddToScheme: tierapis.AddToScheme, Defaults: tierapis.Defaults()}))
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
		}
	})

	objs := make([]*unstructured.Unstructured, len(objects))
	for i, o := range objects {
		objs[i] = toObject(t, kinds, o)
		if err := c.Create(ctx, objs[i]); err != nil {
			t.Fatalf("create %s %s: %v", objs[i].GetKind(), o.name, err)
		}
	}
	ready := waitReady(t, ctx, c, objs, done)
	if t.Failed() {
		t.Logf("the operator's log ends:\n%s", tail(logs, 60))
	}
	t.Logf("%d/%d objects Ready (a resource group and %d objects of 3 providers of the generated tier) %s after the operator started",
		ready, len(objs), len(objs)-1, time.Since(opStart).Round(time.Millisecond))
}

// descriptors are the curated tier's and the generated tier's kinds, a
// group and kind once, as operator.WithKinds serves them.
func descriptors() []*descriptor.Descriptor {
	out := apis.Descriptors()
	seen := map[schema.GroupKind]bool{}
	for _, d := range out {
		seen[d.GroupVersionKind().GroupKind()] = true
	}
	for _, d := range tierapis.Descriptors() {
		if !seen[d.GroupVersionKind().GroupKind()] {
			out = append(out, d)
		}
	}
	return out
}

// crdFolders lists the folders below root that hold CRD YAML (config/crd
// and config/crd/generated have one per API group), and counts the files,
// and those below generated.
func crdFolders(t *testing.T, root, generated string) (dirs []string, files, below int) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") || d.Name() == "kustomization.yaml" {
			return err
		}
		files++
		if strings.HasPrefix(p, generated+string(filepath.Separator)) {
			below++
		}
		if dir := filepath.Dir(p); !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	return dirs, files, below
}

// operatorLog sends controller-runtime's log (the operator's) to a file of
// the test, whose name it returns.
func operatorLog(t *testing.T) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "operator.log")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	ctrl.SetLogger(zap.New(zap.WriteTo(f)))
	return name
}

// tail is the last n lines of a file.
func tail(name string, n int) string {
	b, _ := os.ReadFile(name)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// readCRDs reads the CRD files of dirs (one CRD each, as make crds and
// make manifests write them).
func readCRDs(t *testing.T, dirs []string) []*apiextv1.CustomResourceDefinition {
	t.Helper()
	var out []*apiextv1.CustomResourceDefinition
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if filepath.Base(f) == "kustomization.yaml" {
				continue
			}
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			crd := &apiextv1.CustomResourceDefinition{}
			if err := yaml.Unmarshal(raw, crd); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, crd)
		}
	}
	return out
}

// create creates the CRDs, four at a time, as kubectl apply would one after
// the other; it returns those created and, for the others, the CRD's name
// and the first line of the apiserver's answer.
func create(c client.Client, crds []*apiextv1.CustomResourceDefinition) (created []*apiextv1.CustomResourceDefinition, refused []string) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan *apiextv1.CustomResourceDefinition)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for crd := range next {
				err := c.Create(context.Background(), crd)
				mu.Lock()
				if err != nil {
					refused = append(refused, crd.Name+": "+why(err))
				} else {
					created = append(created, crd)
				}
				mu.Unlock()
			}
		}()
	}
	for _, crd := range crds {
		next <- crd
	}
	close(next)
	wg.Wait()
	sort.Strings(refused)
	return created, refused
}

// celError finds the first compile error of a CEL rule in a message.
var celError = regexp.MustCompile(`ERROR: <input>:\d+:\d+: [^\n]*`)

// why is the apiserver's refusal in short: its first line, and the first
// error of a CEL rule it names.
func why(err error) string {
	first, _, _ := strings.Cut(err.Error(), "\n")
	msg := shorten(first, 300)
	if e := celError.FindString(err.Error()); e != "" {
		msg += " … " + e
	}
	return msg
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// waitEstablished waits until every CRD has the condition Established
// (10 minutes at most) and returns how many have; it fails the test for
// the others.
func waitEstablished(t *testing.T, c client.Client, crds []*apiextv1.CustomResourceDefinition) int {
	t.Helper()
	pending := map[string]bool{}
	for _, crd := range crds {
		pending[crd.Name] = true
	}
	deadline := time.Now().Add(10 * time.Minute)
	for len(pending) > 0 && time.Now().Before(deadline) {
		var list apiextv1.CustomResourceDefinitionList
		if err := c.List(context.Background(), &list); err != nil {
			t.Fatal(err)
		}
		for _, crd := range list.Items {
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
					delete(pending, crd.Name)
				}
			}
		}
		if len(pending) > 0 {
			time.Sleep(time.Second)
		}
	}
	if len(pending) > 0 {
		var names []string
		for n := range pending {
			names = append(names, n)
		}
		sort.Strings(names)
		t.Errorf("%d CRDs not Established after 10 minutes: %s", len(names), strings.Join(names, ", "))
	}
	return len(crds) - len(pending)
}

// toObject makes the custom resource of o at the version its kind is
// served in.
func toObject(t *testing.T, kinds []*descriptor.Descriptor, o object) *unstructured.Unstructured {
	t.Helper()
	group := o.group + ".azure.armature.dev"
	var d *descriptor.Descriptor
	for _, k := range kinds {
		if k.Group == group && k.Kind == o.kind {
			d = k
		}
	}
	if d == nil {
		t.Fatalf("no kind %s/%s among the curated and generated tiers", group, o.kind)
	}
	spec := map[string]any{}
	for k, v := range o.spec {
		spec[k] = v
	}
	if o.owner != "" {
		spec["owner"] = map[string]any{"name": o.owner}
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(d.GroupVersionKind())
	u.SetName(o.name)
	u.SetNamespace(namespace)
	return u
}

// waitReady waits until every object is Ready (5 minutes at most, or until
// the operator stops) and returns how many are; it fails the test for the
// others, with their condition.
func waitReady(t *testing.T, ctx context.Context, c client.Client, objs []*unstructured.Unstructured, done <-chan error) int {
	t.Helper()
	state := make([]string, len(objs))
	deadline := time.Now().Add(5 * time.Minute)
	for {
		ready := 0
		for i, o := range objs {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(o.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), u); err != nil {
				t.Fatal(err)
			}
			state[i] = "no Ready condition yet"
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, x := range conds {
				m, _ := x.(map[string]any)
				if m["type"] == "Ready" {
					state[i] = fmt.Sprintf("Ready=%v %v: %v", m["status"], m["reason"], m["message"])
					if m["status"] == "True" {
						ready++
					}
				}
			}
		}
		if ready == len(objs) {
			return ready
		}
		select {
		case err := <-done:
			t.Fatalf("the operator stopped: %v", err)
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			for i, o := range objs {
				if !strings.HasPrefix(state[i], "Ready=True") {
					t.Errorf("%s %s: %s", o.GetKind(), o.GetName(), state[i])
				}
			}
			return ready
		}
	}
}

// newToken is the emulator's bearer token for this run.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "tier-test." + hex.EncodeToString(b[:])
}
