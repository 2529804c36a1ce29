package helm

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/armature-dev/armature/hack/manifests/render"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/webhook"
)

// crdInfo is what the tests know of a CRD of config/default.
type crdInfo struct {
	name, group, kind, plural string
	converts                  bool
}

// configCRDs returns the CRDs of config/default's build: the chart's
// expected universe, read without the chart.
func configCRDs(t *testing.T, objs []*unstructured.Unstructured) []crdInfo {
	t.Helper()
	var out []crdInfo
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		c := crdInfo{name: o.GetName()}
		c.group, _, _ = unstructured.NestedString(o.Object, "spec", "group")
		c.kind, _, _ = unstructured.NestedString(o.Object, "spec", "names", "kind")
		c.plural, _, _ = unstructured.NestedString(o.Object, "spec", "names", "plural")
		s, _, _ := unstructured.NestedString(o.Object, "spec", "conversion", "strategy")
		c.converts = s == "Webhook"
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatal("config/default has no CRD")
	}
	return out
}

// chosenBy returns the CRDs the operator's own matcher (Config.Selected,
// path.Match over <group>/<Kind>) picks with kinds.
func chosenBy(t *testing.T, crds []crdInfo, kinds string) map[string]crdInfo {
	t.Helper()
	ds := make([]*descriptor.Descriptor, len(crds))
	for i, c := range crds {
		ds[i] = &descriptor.Descriptor{Group: c.group, Kind: c.kind}
	}
	cfg := operator.Config{Kinds: kinds}
	picked, err := cfg.Selected(ds)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]crdInfo{}
	for _, d := range picked {
		for _, c := range crds {
			if c.group == d.Group && c.kind == d.Kind {
				out[c.name] = c
			}
		}
	}
	return out
}

// operatorConfig is the operator's configuration as the rendered
// Deployment starts it: its arguments parsed by Config.BindFlags with the
// ConfigMap's keys as the environment.
func operatorConfig(t *testing.T, objs []*unstructured.Unstructured) operator.Config {
	t.Helper()
	var dep, cm *unstructured.Unstructured
	for _, o := range objs {
		switch {
		case o.GetKind() == "Deployment" && o.GetName() == "armature-operator":
			dep = o
		case o.GetKind() == "ConfigMap" && o.GetName() == "armature-operator-config":
			cm = o
		}
	}
	if dep == nil || cm == nil {
		t.Fatal("the render has no Deployment armature-operator or ConfigMap armature-operator-config")
	}
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	for k, v := range data {
		t.Setenv(k, v)
	}
	containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	c, _ := containers[0].(map[string]any)
	var args []string
	for _, a := range c["args"].([]any) {
		args = append(args, fmt.Sprint(a))
	}
	var cfg operator.Config
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.BindFlags(fs)
	zopts := zap.Options{}
	zopts.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("the operator refuses the Deployment's args %q: %v", args, err)
	}
	return cfg
}

// objectsOf returns the rendered objects of a kind.
func objectsOf(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// one returns the rendered object of a kind and name, nil when none.
func one(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// allowed returns the allowances of a role (allowances' format).
func allowed(o *unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	if o == nil {
		return out
	}
	rules, _, _ := unstructured.NestedSlice(o.Object, "rules")
	for _, a := range allowances(rules) {
		out[a.(string)] = true
	}
	return out
}

// webhookResources returns, per webhook entry of a configuration, its
// rules' group/version/resource.
func webhookResources(o *unstructured.Unstructured) map[string][]string {
	out := map[string][]string{}
	if o == nil {
		return out
	}
	ws, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
	for _, w := range ws {
		entry, _ := w.(map[string]any)
		name := fmt.Sprint(entry["name"])
		out[name] = []string{}
		rules, _ := entry["rules"].([]any)
		for _, r := range rules {
			rule, _ := r.(map[string]any)
			for _, g := range rule["apiGroups"].([]any) {
				for _, v := range rule["apiVersions"].([]any) {
					for _, res := range rule["resources"].([]any) {
						out[name] = append(out[name], fmt.Sprintf("%s/%s/%s", g, v, res))
					}
				}
			}
		}
		sort.Strings(out[name])
	}
	return out
}

// TestSelection renders the chart with choices of groups and kinds and
// checks that it installs exactly the CRDs the operator's matcher picks for
// the patterns the chart passes it (ARMATURE_KINDS), and narrows the
// operator's ClusterRole, the webhook rules, the certificate's CRD names
// and the conversions to them.
func TestSelection(t *testing.T) {
	config := kustomize(t, filepath.Join(configDir(), "default"))
	all := configCRDs(t, config)
	cases := map[string]struct {
		reason          string
		groups, kinds   []string
		generatedGroups []string
		// patterns are the operator's --kinds for the choice, written
		// here from the values (groups become <group>/*).
		patterns string
	}{
		"GroupByFirstLabel": {
			reason:   "storage is storage.azure.armature.dev; its kinds have two versions and convert through the operator",
			groups:   []string{"storage"},
			patterns: "storage.azure.armature.dev/*",
		},
		"GroupAndKinds": {
			reason:   "a group by its name and kinds of another group by a pattern",
			groups:   []string{"resources.azure.armature.dev"},
			kinds:    []string{"keyvault.azure.armature.dev/Vault*"},
			patterns: "resources.azure.armature.dev/*,keyvault.azure.armature.dev/Vault*",
		},
		"KindPatterns": {
			reason:   "* matches any group, ? one letter: PrivateDnsZonesA but not PrivateDnsZonesAAAA or PrivateDnsZonesMX",
			kinds:    []string{"*/StorageAccount", "network.azure.armature.dev/PrivateDnsZones?"},
			patterns: "*/StorageAccount,network.azure.armature.dev/PrivateDnsZones?",
		},
		"ActionAlone": {
			reason:   "the Action kind brings its own rules (ConfigMaps and Secrets) and webhook entry",
			groups:   []string{"actions"},
			patterns: "actions.azure.armature.dev/*",
		},
		"GeneratedGroups": {
			reason:          "a group of the generated tier, installed outside the chart, is run and allowed whole",
			groups:          []string{"resources", "keyvault"},
			generatedGroups: []string{"containerregistry.azure.armature.dev"},
			patterns:        "resources.azure.armature.dev/*,keyvault.azure.armature.dev/*",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := rendered(t, map[string]any{"groups": tc.groups, "kinds": tc.kinds, "generatedGroups": tc.generatedGroups})
			want := chosenBy(t, all, tc.patterns)
			if len(want) == 0 || len(want) == len(all) {
				t.Fatalf("%s: the case chooses %d of %d CRDs: it tests no choice", tc.reason, len(want), len(all))
			}
			checkCRDs(t, objs, want)
			checkKinds(t, objs, all, want, tc.generatedGroups)
			checkRole(t, objs, all, want, tc.generatedGroups)
			checkWebhooks(t, objs, config, want, tc.generatedGroups)
			checkCertsRole(t, objs, want)
		})
	}
}

// checkCRDs: the rendered CRDs are the chosen ones; those that convert
// in config/default convert here too.
func checkCRDs(t *testing.T, objs []*unstructured.Unstructured, want map[string]crdInfo) {
	t.Helper()
	var got, wantNames []string
	for _, o := range objectsOf(objs, "CustomResourceDefinition") {
		got = append(got, o.GetName())
		s, _, _ := unstructured.NestedString(o.Object, "spec", "conversion", "strategy")
		if c := want[o.GetName()]; c.converts != (s == "Webhook") {
			t.Errorf("CRD %s: conversion strategy %q; config/default converts it through the operator: %v", o.GetName(), s, c.converts)
		}
	}
	for n := range want {
		wantNames = append(wantNames, n)
	}
	sort.Strings(got)
	sort.Strings(wantNames)
	if diff := cmp.Diff(wantNames, got); diff != "" {
		t.Errorf("CRDs -want +got:\n%s", diff)
	}
}

// checkKinds: the operator, as the Deployment and ConfigMap start it,
// runs exactly the chosen kinds, and the generated groups.
func checkKinds(t *testing.T, objs []*unstructured.Unstructured, all []crdInfo, want map[string]crdInfo, generated []string) {
	t.Helper()
	cfg := operatorConfig(t, objs)
	if cfg.Kinds == "" {
		t.Fatal("the operator runs every installed kind: the chart sets no --kinds (ARMATURE_KINDS)")
	}
	got := chosenBy(t, all, cfg.Kinds)
	if diff := cmp.Diff(names(want), names(got)); diff != "" {
		t.Errorf("the operator's --kinds %q runs -want (the CRDs installed) +got:\n%s", cfg.Kinds, diff)
	}
	for _, g := range generated {
		if !slices.Contains(strings.Split(cfg.Kinds, ","), g+"/*") {
			t.Errorf("--kinds %q does not run the generated group %s", cfg.Kinds, g)
		}
	}
}

func names(m map[string]crdInfo) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// checkRole: the operator's ClusterRole allows the chosen kinds what the
// reconciler needs, names no resource of a kind not chosen (and no group
// with none chosen), grants the Action's ConfigMap rules only with the
// Action, and every resource of each generated group.
func checkRole(t *testing.T, objs []*unstructured.Unstructured, all []crdInfo, want map[string]crdInfo, generated []string) {
	t.Helper()
	a := allowed(one(objs, "ClusterRole", render.RoleName))
	if len(a) == 0 {
		t.Fatalf("no ClusterRole %s", render.RoleName)
	}
	chosenGroups := map[string]bool{}
	for _, c := range want {
		chosenGroups[c.group] = true
	}
	for _, c := range all {
		_, chosen := want[c.name]
		for _, v := range render.KindVerbs {
			if got := a[fmt.Sprintf("%s/%s %s ", c.group, c.plural, v)]; got != chosen {
				t.Errorf("%s %s/%s allowed: %v, want %v (chosen)", v, c.group, c.plural, got, chosen)
			}
		}
		for _, v := range render.StatusVerbs {
			if got := a[fmt.Sprintf("%s/%s/status %s ", c.group, c.plural, v)]; got != chosen {
				t.Errorf("%s %s/%s/status allowed: %v, want %v", v, c.group, c.plural, got, chosen)
			}
		}
		if got := a[fmt.Sprintf("%s/%s/finalizers update ", c.group, c.plural)]; got != chosen {
			t.Errorf("update %s/%s/finalizers allowed: %v, want %v", c.group, c.plural, got, chosen)
		}
		if !chosenGroups[c.group] {
			for k := range a {
				if strings.HasPrefix(k, c.group+"/") {
					t.Errorf("%s: a rule on a group none of whose kinds is chosen", k)
				}
			}
		}
	}
	if !a["/secrets get "] || !a["/secrets watch "] || !a["/events create "] {
		t.Errorf("the base rules (Secrets, Events) are missing: %v", a)
	}
	_, action := want["actions.actions.azure.armature.dev"]
	if got := a["/configmaps update "]; got != action {
		t.Errorf("update ConfigMaps (the Action kind's results) allowed: %v, want %v (Action chosen)", got, action)
	}
	for _, g := range generated {
		for _, v := range []string{"get", "list", "watch", "patch", "update"} {
			if !a[fmt.Sprintf("%s/* %s ", g, v)] {
				t.Errorf("generated group %s: %s on its resources not allowed", g, v)
			}
		}
	}
}

// checkWebhooks: each webhook entry of the validating and mutating
// configurations has config/default's rules for the chosen kinds only,
// plus every resource of each generated group; the Action's entry only
// with the Action kind.
func checkWebhooks(t *testing.T, objs, config []*unstructured.Unstructured, want map[string]crdInfo, generated []string) {
	t.Helper()
	for _, kc := range []struct{ kind, name string }{
		{"ValidatingWebhookConfiguration", webhook.ValidatingConfigurationName},
		{"MutatingWebhookConfiguration", webhook.MutatingConfigurationName},
	} {
		full := webhookResources(one(config, kc.kind, kc.name))
		got := webhookResources(one(objs, kc.kind, kc.name))
		wantEntries := map[string][]string{}
		for entry, resources := range full {
			kept := []string{}
			for _, r := range resources {
				parts := strings.Split(r, "/")
				if _, ok := want[parts[2]+"."+parts[0]]; ok {
					kept = append(kept, r)
				}
			}
			if len(kept) == 0 && entry == webhook.ActionWebhookName {
				continue
			}
			for _, g := range generated {
				kept = append(kept, g+"/*/*")
			}
			sort.Strings(kept)
			wantEntries[entry] = kept
		}
		if diff := cmp.Diff(wantEntries, got); diff != "" {
			t.Errorf("%s rules -want +got:\n%s", kc.name, diff)
		}
	}
}

// checkCertsRole: the certificate management may update exactly the
// chosen CRDs that convert through the operator, and list and watch CRDs
// only when there is one.
func checkCertsRole(t *testing.T, objs []*unstructured.Unstructured, want map[string]crdInfo) {
	t.Helper()
	a := allowed(one(objs, "ClusterRole", render.CertsRoleName))
	if len(a) == 0 {
		t.Fatalf("no ClusterRole %s", render.CertsRoleName)
	}
	var wantNames, got []string
	for _, c := range want {
		if c.converts {
			wantNames = append(wantNames, c.name)
		}
	}
	for k := range a {
		if n, ok := strings.CutPrefix(k, "apiextensions.k8s.io/customresourcedefinitions update "); ok {
			got = append(got, n)
		}
	}
	sort.Strings(wantNames)
	sort.Strings(got)
	if diff := cmp.Diff(wantNames, got); diff != "" {
		t.Errorf("CRDs whose caBundle the operator may update -want +got:\n%s", diff)
	}
	if list := a["apiextensions.k8s.io/customresourcedefinitions list "]; list != (len(wantNames) > 0) {
		t.Errorf("list CRDs allowed: %v, with %d converting CRDs chosen", list, len(wantNames))
	}
}
