package helm

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// helmLabels are the labels the chart adds to config/'s, with their values.
var helmLabels = map[string]string{
	"helm.sh/chart":                "", // the chart and its version
	"app.kubernetes.io/instance":   releaseName,
	"app.kubernetes.io/managed-by": "Helm",
}

// hashSuffix is the hash kustomize appends to a generated ConfigMap's name.
var hashSuffix = regexp.MustCompile(`-[a-z0-9]{10}$`)

// id names an object for the comparison: kind and name, a generated
// ConfigMap's without kustomize's hash.
func id(o *unstructured.Unstructured) string {
	name := o.GetName()
	if o.GetKind() == "ConfigMap" {
		name = hashSuffix.ReplaceAllString(name, "")
	}
	return o.GetKind() + " " + name
}

func byID(t *testing.T, objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if _, dup := out[id(o)]; dup {
			t.Errorf("two objects %s", id(o))
		}
		out[id(o)] = o
	}
	return out
}

// TestDefaultIsConfigDefault renders the chart with its default values and
// compares every object with config/default's kustomize build: the same
// objects but the Namespace (Helm installs into the release's), each equal
// up to the labels Helm adds, the CRDs' keep policy, the Deployment's
// checksum of its ConfigMap and the ConfigMap's name (kustomize hashes it);
// rules compared as the (group, resource, verb, name) they allow.
func TestDefaultIsConfigDefault(t *testing.T) {
	chart := byID(t, rendered(t, nil))
	config := byID(t, kustomize(t, filepath.Join(configDir(), "default")))
	compareBuilds(t, config, chart, "config/default")
}

// compareBuilds compares the chart's objects with a kustomize build's.
func compareBuilds(t *testing.T, config, chart map[string]*unstructured.Unstructured, name string) {
	t.Helper()
	renamed := map[string]string{}
	for _, o := range config {
		if o.GetKind() == "ConfigMap" {
			renamed[o.GetName()] = hashSuffix.ReplaceAllString(o.GetName(), "")
		}
	}
	ids := slices.Sorted(maps.Keys(config))
	for _, k := range ids {
		if strings.HasPrefix(k, "Namespace ") {
			if _, ok := chart[k]; ok {
				t.Errorf("the chart renders %s: Helm's release namespace must exist before the install", k)
			}
			continue
		}
		got, ok := chart[k]
		if !ok {
			t.Errorf("%s of %s is not rendered by the chart", k, name)
			continue
		}
		want := normalize(t, config[k], renamed, false)
		if diff := cmp.Diff(want, normalize(t, got, nil, true)); diff != "" {
			t.Errorf("%s: %s -want, chart +got:\n%s", k, name, diff)
		}
	}
	for k := range chart {
		if _, ok := config[k]; !ok {
			t.Errorf("the chart renders %s, which %s does not have", k, name)
		}
	}
	if n := len(chart); n < 20 {
		t.Errorf("the chart renders %d objects: too few to be config/default", n)
	}
}

// normalize returns what is compared of an object. From a chart object it
// removes (after checking them) the labels Helm adds, the CRDs' keep
// policy and the Deployment's checksum annotation; in a kustomize object
// it renames the hashed ConfigMap. Rules become sorted allowances.
func normalize(t *testing.T, o *unstructured.Unstructured, renamed map[string]string, chart bool) map[string]any {
	t.Helper()
	c := o.DeepCopy()
	if chart {
		labels := c.GetLabels()
		for k, v := range helmLabels {
			if labels[k] == "" || (v != "" && labels[k] != v) {
				t.Errorf("%s: label %s=%q, want %q", id(o), k, labels[k], v)
			}
			delete(labels, k)
		}
		c.SetLabels(labels)
		if c.GetKind() == "CustomResourceDefinition" {
			ann := c.GetAnnotations()
			if ann["helm.sh/resource-policy"] != "keep" {
				t.Errorf("%s: no helm.sh/resource-policy: keep", id(o))
			}
			delete(ann, "helm.sh/resource-policy")
			c.SetAnnotations(ann)
		}
		if c.GetKind() == "Deployment" {
			ann, _, _ := unstructured.NestedStringMap(c.Object, "spec", "template", "metadata", "annotations")
			if len(ann["checksum/config"]) != 64 {
				t.Errorf("%s: checksum/config = %q, want a sha256", id(o), ann["checksum/config"])
			}
			delete(ann, "checksum/config")
			_ = unstructured.SetNestedStringMap(c.Object, ann, "spec", "template", "metadata", "annotations")
		}
	}
	m := rename(c.Object, renamed).(map[string]any)
	if c.GetKind() == "ConfigMap" {
		unstructured.RemoveNestedField(m, "metadata", "name")
	}
	if len(c.GetLabels()) == 0 {
		unstructured.RemoveNestedField(m, "metadata", "labels")
	}
	if len(c.GetAnnotations()) == 0 {
		unstructured.RemoveNestedField(m, "metadata", "annotations")
	}
	if rules, ok, _ := unstructured.NestedSlice(m, "rules"); ok {
		m["rules"] = allowances(rules)
	}
	return m
}

// rename replaces the strings of renamed in a JSON-shaped value.
func rename(v any, renamed map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			out[k] = rename(val, renamed)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = rename(it, renamed)
		}
		return out
	case string:
		if n, ok := renamed[x]; ok {
			return n
		}
	}
	return v
}

// allowances expands RBAC rules into the sorted (group, resource, verb,
// name) — or (URL, verb) — they allow, each once.
func allowances(rules []any) []any {
	set := map[string]bool{}
	for _, r := range rules {
		rule, _ := r.(map[string]any)
		strs := func(k string) []string {
			l, _ := rule[k].([]any)
			out := make([]string, len(l))
			for i, v := range l {
				out[i] = fmt.Sprint(v)
			}
			return out
		}
		names := strs("resourceNames")
		if len(names) == 0 {
			names = []string{""}
		}
		for _, v := range strs("verbs") {
			for _, u := range strs("nonResourceURLs") {
				set["url "+u+" "+v] = true
			}
			for _, g := range strs("apiGroups") {
				for _, res := range strs("resources") {
					for _, n := range names {
						set[fmt.Sprintf("%s/%s %s %s", g, res, v, n)] = true
					}
				}
			}
		}
	}
	keys := slices.Collect(maps.Keys(set))
	sort.Strings(keys)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out
}
