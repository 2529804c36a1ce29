package crds

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/examples"
	"github.com/armature-dev/armature/test/envtestutil"
)

var (
	cfg *rest.Config
	cl  client.Client
)

func TestMain(m *testing.M) {
	env, c, err := envtestutil.Start(filepath.Join(envtestutil.RepoRoot(), "generated", "crds"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtest:", err)
		os.Exit(1)
	}
	cfg = c
	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	if cl, err = envtestutil.Client(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop envtest:", err)
	}
	os.Exit(code)
}

func namespace(t *testing.T, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := cl.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return name
}

func analysis(t *testing.T) *generator.Analysis {
	t.Helper()
	c, err := config.Load(filepath.Join(envtestutil.RepoRoot(), "specs", "armature.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	root := config.ResolveSpecRoot("", c, c.Dir)
	if _, err := os.Stat(filepath.Join(root, "specification")); err != nil {
		t.Skipf("the Azure specs are not at %s: run hack/sync-specs.sh (CI always has ../shared/specs)", root)
	}
	a, err := generator.Analyze(generator.Options{SpecRoot: root, Files: c.Files, Config: c, Domain: c.Domain})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// jsonEqual compares after a JSON round trip, so int64 1 and float64 1 are
// the same number, as they are on the wire.
func jsonNormal(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// TestEveryExampleIsStoredAsSent creates a custom resource from every
// x-ms-examples PUT body of the corpus and reads it back: the stored spec
// must equal what was sent. It prints the acceptance ratio per resource
// provider.
func TestEveryExampleIsStoredAsSent(t *testing.T) {
	a := analysis(t)
	ns := namespace(t, "examples")
	ctx := context.Background()
	type tally struct{ ok, total int }
	byRP := map[string]*tally{}
	var failures []string
	n := 0
	for _, p := range a.Packages() { // older api-versions too
		for _, k := range p.Kinds {
			exs, errs := examples.Load(a.Loader.Root(), k.Resource)
			rp := byRP[k.Resource.Provider]
			if rp == nil {
				rp = &tally{}
				byRP[k.Resource.Provider] = rp
			}
			for _, err := range errs {
				rp.total++
				failures = append(failures, err.Error())
			}
			for _, ex := range exs {
				n++
				rp.total++
				cr := examples.ToCR(k, ex)
				u := &unstructured.Unstructured{Object: cr.Object}
				u.SetName(fmt.Sprintf("ex%03d-%s", n, u.GetName()))
				if len(u.GetName()) > 63 {
					u.SetName(strings.TrimRight(u.GetName()[:63], "-."))
				}
				u.SetNamespace(ns)
				sent := jsonNormal(cr.Object["spec"])
				if err := cl.Create(ctx, u); err != nil {
					failures = append(failures, fmt.Sprintf("%s %q (%s): create: %v", k.Name, ex.Title, ex.File, err))
					continue
				}
				got := &unstructured.Unstructured{}
				got.SetGroupVersionKind(u.GroupVersionKind())
				if err := cl.Get(ctx, client.ObjectKeyFromObject(u), got); err != nil {
					failures = append(failures, fmt.Sprintf("%s %q: get: %v", k.Name, ex.Title, err))
					continue
				}
				if diff := cmp.Diff(sent, jsonNormal(got.Object["spec"])); diff != "" {
					failures = append(failures, fmt.Sprintf("%s %q (%s): stored spec differs (-sent +stored):\n%s", k.Name, ex.Title, ex.File, diff))
					continue
				}
				rp.ok++
			}
		}
	}
	rps := make([]string, 0, len(byRP))
	for rp := range byRP {
		rps = append(rps, rp)
	}
	sort.Strings(rps)
	var all tally
	var b strings.Builder
	fmt.Fprintln(&b, "x-ms-examples PUT bodies stored exactly as sent, by resource provider:")
	for _, rp := range rps {
		x := byRP[rp]
		all.ok += x.ok
		all.total += x.total
		fmt.Fprintf(&b, "  %-28s %4d/%-4d (%5.1f%%)\n", rp, x.ok, x.total, 100*float64(x.ok)/float64(max(x.total, 1)))
	}
	fmt.Fprintf(&b, "  %-28s %4d/%-4d (%5.1f%%)\n", "all", all.ok, all.total, 100*float64(all.ok)/float64(max(all.total, 1)))
	fmt.Print(b.String())
	for _, f := range failures {
		t.Log(f)
	}
	if all.total == 0 {
		t.Fatal("no examples found")
	}
	if ratio := float64(all.ok) / float64(all.total); ratio < 0.98 {
		t.Errorf("%.1f%% of example files accepted, want at least 98%%; %d failures listed above", 100*ratio, len(failures))
	}
}

func storageAccount(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "storage.azure.armature.dev/v20230501",
		"kind":       "StorageAccount",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"azureName": name,
			"owner":     map[string]any{"name": "rg"},
			"location":  "westeurope",
			"kind":      "StorageV2",
			"sku":       map[string]any{"name": "Standard_LRS"},
			"properties": map[string]any{
				"accessTier":   "Hot",
				"isHnsEnabled": true,
			},
		},
	}}
	return u
}

// TestCreateOnlyFieldsAreImmutable: the CEL rules in the CRD refuse changes
// to create-only fields, naming the field; writable fields change; status is
// written only through the status subresource.
func TestCreateOnlyFieldsAreImmutable(t *testing.T) {
	ns := namespace(t, "immutability")
	ctx := context.Background()
	sa := storageAccount("media")
	sa.SetNamespace(ns)
	if err := cl.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		mutate func(spec map[string]any)
		reject string // "" means the update is accepted
	}{
		"ChangeLocation": {
			mutate: func(s map[string]any) { s["location"] = "northeurope" },
			reject: "spec.location is create-only",
		},
		"RemoveNestedCreateOnly": {
			mutate: func(s map[string]any) { delete(s["properties"].(map[string]any), "isHnsEnabled") },
			reject: "spec.properties.isHnsEnabled is create-only",
		},
		"AddCreateOnly": {
			mutate: func(s map[string]any) { s["extendedLocation"] = map[string]any{"name": "edge", "type": "EdgeZone"} },
			reject: "spec.extendedLocation is create-only",
		},
		"ChangeWritable": {
			mutate: func(s map[string]any) { s["properties"].(map[string]any)["accessTier"] = "Cool" },
		},
		"ChangeSku": {
			mutate: func(s map[string]any) { s["sku"].(map[string]any)["name"] = "Standard_GRS" },
		},
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		tc := cases[name]
		t.Run(name, func(t *testing.T) {
			cur := &unstructured.Unstructured{}
			cur.SetGroupVersionKind(sa.GroupVersionKind())
			if err := cl.Get(ctx, client.ObjectKeyFromObject(sa), cur); err != nil {
				t.Fatal(err)
			}
			tc.mutate(cur.Object["spec"].(map[string]any))
			err := cl.Update(ctx, cur)
			switch {
			case tc.reject == "" && err != nil:
				t.Fatalf("update must be accepted: %v", err)
			case tc.reject != "" && err == nil:
				t.Fatalf("update must be rejected with %q", tc.reject)
			case tc.reject != "" && !strings.Contains(err.Error(), tc.reject):
				t.Fatalf("error %q does not name the field (%q)", err, tc.reject)
			}
		})
	}

	// Status: ignored on the main resource, written through /status.
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(sa.GroupVersionKind())
	if err := cl.Get(ctx, client.ObjectKeyFromObject(sa), cur); err != nil {
		t.Fatal(err)
	}
	cur.Object["status"] = map[string]any{"id": "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media"}
	if err := cl.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(sa), cur); err != nil {
		t.Fatal(err)
	}
	if _, ok := cur.Object["status"]; ok {
		t.Errorf("status written through the main resource must be dropped, got %v", cur.Object["status"])
	}
	cur.Object["status"] = map[string]any{
		"id":         "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media",
		"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Succeeded", "message": "", "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}},
	}
	if err := cl.Status().Update(ctx, cur); err != nil {
		t.Fatalf("status subresource: %v", err)
	}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(sa), cur); err != nil {
		t.Fatal(err)
	}
	if id, _, _ := unstructured.NestedString(cur.Object, "status", "id"); !strings.HasSuffix(id, "/media") {
		t.Errorf("status.id = %q after the status update", id)
	}
}
