package render

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// writeCRD writes a minimal CRD of group/kind serving versions into dir.
func writeCRD(t *testing.T, dir, group, kind, plural string, versions ...string) string {
	t.Helper()
	var vs strings.Builder
	for i, v := range versions {
		fmt.Fprintf(&vs, "  - name: %s\n    served: true\n    storage: %t\n    schema:\n      openAPIV3Schema:\n        type: object\n", v, i == 0)
	}
	body := fmt.Sprintf(`%s---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[3]s.%[2]s
spec:
  group: %[2]s
  names:
    kind: %[4]s
    listKind: %[4]sList
    plural: %[3]s
    singular: %[5]s
  scope: Namespaced
  versions:
%[6]s`, Header, group, plural, kind, strings.ToLower(kind), vs.String())
	path := filepath.Join(dir, group+"_"+plural+".yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixture is a CRD folder with two groups, one kind serving two versions.
func fixture(t *testing.T) Options {
	t.Helper()
	root := t.TempDir()
	crds := filepath.Join(root, "crds")
	if err := os.Mkdir(crds, 0o755); err != nil {
		t.Fatal(err)
	}
	writeCRD(t, crds, "storage.azure.armature.dev", "StorageAccount", "storageaccounts", "v20230501", "v20250101")
	writeCRD(t, crds, "storage.azure.armature.dev", "StorageAccountsBlobService", "storageaccountsblobservices", "v20230501")
	writeCRD(t, crds, "resources.azure.armature.dev", "ResourceGroup", "resourcegroups", "v20240301")
	return Options{
		Root:   root,
		CRDDir: crds,
		Descriptors: []*descriptor.Descriptor{
			{Group: "storage.azure.armature.dev", Version: "v20230501", Kind: "StorageAccount"},
			{Group: "storage.azure.armature.dev", Version: "v20230501", Kind: "StorageAccountsBlobService"},
			{Group: "resources.azure.armature.dev", Version: "v20240301", Kind: "ResourceGroup"},
		},
	}
}

// roleRules parses the rendered ClusterRole.
func roleRules(t *testing.T, files Files) []rbacv1.PolicyRule {
	t.Helper()
	var r rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(files["rbac/role.yaml"], &r); err != nil {
		t.Fatal(err)
	}
	return r.Rules
}

// grants lists "group/resource:verb" for every rule, sorted.
func grants(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out = append(out, g+"/"+res+":"+v)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestRender(t *testing.T) {
	cases := map[string]struct {
		reason    string
		kinds     string
		action    bool
		wantFiles []string
		wantRBAC  []string // grants on the ""-group, plus one kind's
		wantEnv   string
	}{
		"AllKinds": {
			reason: "every CRD is rendered, one folder per group; ConfigMap writes for outputs, reads only with the Action kind",
			wantFiles: []string{
				"components/conversion/kustomization.yaml",
				"components/conversion/storageaccounts.storage.azure.armature.dev.yaml",
				"components/webhook-certs/role.yaml",
				"crd/kustomization.yaml",
				"crd/resources.azure.armature.dev/kustomization.yaml",
				"crd/resources.azure.armature.dev/resourcegroups.yaml",
				"crd/storage.azure.armature.dev/kustomization.yaml",
				"crd/storage.azure.armature.dev/storageaccounts.yaml",
				"crd/storage.azure.armature.dev/storageaccountsblobservices.yaml",
				"manager/operator.env",
				"rbac/role.yaml",
				"webhook/manifests.yaml",
			},
			wantRBAC: []string{"/configmaps:create", "/configmaps:get", "/configmaps:patch", "/events:create", "/events:patch", "/secrets:create", "/secrets:get", "/secrets:list", "/secrets:patch", "/secrets:watch"},
			wantEnv:  "ARMATURE_KINDS=\n",
		},
		"OneKind": {
			reason: "a --kinds pattern renders only that kind, and tells the operator",
			kinds:  "resources.*/ResourceGroup",
			wantFiles: []string{
				"components/conversion/kustomization.yaml",
				"components/webhook-certs/role.yaml",
				"crd/kustomization.yaml",
				"crd/resources.azure.armature.dev/kustomization.yaml",
				"crd/resources.azure.armature.dev/resourcegroups.yaml",
				"manager/operator.env",
				"rbac/role.yaml",
				"webhook/manifests.yaml",
			},
			wantRBAC: []string{"/configmaps:create", "/configmaps:get", "/configmaps:patch", "/events:create", "/events:patch", "/secrets:create", "/secrets:get", "/secrets:list", "/secrets:patch", "/secrets:watch"},
			wantEnv:  "ARMATURE_KINDS=resources.*/ResourceGroup\n",
		},
		"WithAction": {
			reason: "the Action CRD, when present, brings Secret and ConfigMap writes",
			kinds:  "actions.*/*",
			action: true,
			wantFiles: []string{
				"components/conversion/kustomization.yaml",
				"components/webhook-certs/role.yaml",
				"crd/actions.azure.armature.dev/actions.yaml",
				"crd/actions.azure.armature.dev/kustomization.yaml",
				"crd/kustomization.yaml",
				"manager/operator.env",
				"rbac/role.yaml",
				"webhook/manifests.yaml",
			},
			wantRBAC: []string{
				"/configmaps:create", "/configmaps:get", "/configmaps:list", "/configmaps:patch", "/configmaps:update", "/configmaps:watch",
				"/events:create", "/events:patch",
				"/secrets:create", "/secrets:get", "/secrets:list", "/secrets:patch", "/secrets:update", "/secrets:watch",
			},
			wantEnv: "ARMATURE_KINDS=actions.*/*\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := fixture(t)
			o.Kinds = tc.kinds
			action := filepath.Join(o.Root, "action.yaml")
			o.Extra = []ExtraCRD{{Path: action, Rules: ActionRules()}}
			if tc.action {
				dir := t.TempDir()
				p := writeCRD(t, dir, "actions.azure.armature.dev", "Action", "actions", "v1alpha1")
				if err := os.Rename(p, action); err != nil {
					t.Fatal(err)
				}
			}
			files, err := Render(o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantFiles, files.Paths()); diff != "" {
				t.Errorf("%s\nfiles: -want +got:\n%s", tc.reason, diff)
			}
			var core []string
			for _, g := range grants(roleRules(t, files)) {
				if strings.HasPrefix(g, "/") {
					core = append(core, g)
				}
			}
			if diff := cmp.Diff(tc.wantRBAC, core); diff != "" {
				t.Errorf("%s\ncore RBAC: -want +got:\n%s", tc.reason, diff)
			}
			if !strings.Contains(string(files["manager/operator.env"]), "\n"+tc.wantEnv) {
				t.Errorf("%s\noperator.env lacks %q:\n%s", tc.reason, tc.wantEnv, files["manager/operator.env"])
			}
			for p, c := range files {
				if !IsGenerated(c) {
					t.Errorf("%s does not start with the generated header", p)
				}
			}
		})
	}
}

func TestRoleGrantsExactlyTheKinds(t *testing.T) {
	o := fixture(t)
	o.Kinds = "storage.*/StorageAccount"
	files, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	var kindGrants []string
	for _, g := range grants(roleRules(t, files)) {
		if !strings.HasPrefix(g, "/") {
			kindGrants = append(kindGrants, g)
		}
	}
	const g = "storage.azure.armature.dev/"
	want := []string{
		g + "storageaccounts/finalizers:update",
		g + "storageaccounts/status:get", g + "storageaccounts/status:patch", g + "storageaccounts/status:update",
		g + "storageaccounts:get", g + "storageaccounts:list", g + "storageaccounts:patch", g + "storageaccounts:update", g + "storageaccounts:watch",
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, kindGrants); diff != "" {
		t.Errorf("kind grants: -want +got:\n%s", diff)
	}
}

func TestRenderErrors(t *testing.T) {
	cases := map[string]struct {
		reason string
		change func(t *testing.T, o *Options)
		want   string
	}{
		"NoMatch": {
			reason: "a pattern selecting nothing is an error, not an empty config/",
			change: func(_ *testing.T, o *Options) { o.Kinds = "nothing.*/*" },
			want:   "selects no CRD",
		},
		"BadPattern": {
			reason: "a malformed pattern is reported as the operator reports it",
			change: func(_ *testing.T, o *Options) { o.Kinds = "[" },
			want:   `--kinds "["`,
		},
		"StaleDescriptor": {
			reason: "a Descriptor without a CRD means generated/ is inconsistent",
			change: func(_ *testing.T, o *Options) {
				o.Descriptors = append(o.Descriptors, &descriptor.Descriptor{Group: "storage.azure.armature.dev", Version: "v1", Kind: "StorageAccount"})
			},
			want: "has a Descriptor but no CRD serving it",
		},
		"TwoFilesOneCRD": {
			reason: "an extra CRD that repeats a generated one is refused",
			change: func(t *testing.T, o *Options) {
				dir := t.TempDir()
				o.Extra = []ExtraCRD{{Path: writeCRD(t, dir, "resources.azure.armature.dev", "ResourceGroup", "resourcegroups", "v20240301")}}
			},
			want: "is defined by both",
		},
		"NotACRD": {
			reason: "a file that is not a CRD names itself",
			change: func(t *testing.T, o *Options) {
				if err := os.WriteFile(filepath.Join(o.CRDDir, "x.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: "crds/x.yaml",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := fixture(t)
			tc.change(t, &o)
			_, err := Render(o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s\nerror = %v, want it to contain %q", tc.reason, err, tc.want)
			}
		})
	}
}

func TestConversionOnlyForSeveralVersions(t *testing.T) {
	files, err := Render(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	var patch map[string]any
	if err := yaml.Unmarshal(files["components/conversion/storageaccounts.storage.azure.armature.dev.yaml"], &patch); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"strategy": "Webhook",
		"webhook": map[string]any{
			"conversionReviewVersions": []any{"v1"},
			"clientConfig": map[string]any{"service": map[string]any{
				"namespace": Namespace, "name": "armature-webhook", "path": ConversionPath, "port": float64(443),
			}},
		},
	}
	if diff := cmp.Diff(want, patch["spec"].(map[string]any)["conversion"]); diff != "" {
		t.Errorf("conversion patch: -want +got:\n%s", diff)
	}
	labels := patch["metadata"].(map[string]any)["labels"]
	if diff := cmp.Diff(map[string]any{"armature.dev/conversion": "webhook"}, labels); diff != "" {
		t.Errorf("conversion patch labels (for the overlays' CA patches): -want +got:\n%s", diff)
	}
	k := string(files["components/conversion/kustomization.yaml"])
	if strings.Contains(k, "resourcegroups") || !strings.Contains(k, "- path: storageaccounts.storage.azure.armature.dev.yaml") {
		t.Errorf("the component must patch exactly the CRDs with several versions:\n%s", k)
	}
}

func TestDeterministic(t *testing.T) {
	o := fixture(t)
	a, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two renders differ: -first +second:\n%s", diff)
	}
}

func TestWriteAndDiff(t *testing.T) {
	o := fixture(t)
	files, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	hand := filepath.Join(src, "manager", "manager.yaml")
	if err := os.MkdirAll(filepath.Dir(hand), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hand, []byte("kind: Deployment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A generated file of a group that is gone must be removed by Write.
	gone := filepath.Join(src, "crd", "gone.azure.armature.dev", "things.yaml")
	if err := os.MkdirAll(filepath.Dir(gone), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gone, []byte(Header+"kind: X\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diffs, err := Diff(src, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != len(files)+1 || !contains(diffs, "stale: crd/gone.azure.armature.dev/things.yaml") {
		t.Errorf("Diff before Write = %q, want every file missing and the stale one", diffs)
	}
	out := t.TempDir()
	if err := Write(out, files, src); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(out, "manager", "manager.yaml")); err != nil || string(got) != "kind: Deployment\n" {
		t.Errorf("hand-written file not copied: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(out, "crd", "gone.azure.armature.dev")); !os.IsNotExist(err) {
		t.Errorf("a generated file was copied as hand-written: %v", err)
	}
	if diffs, err := Diff(out, files); err != nil || len(diffs) != 0 {
		t.Errorf("Diff after Write = %q, %v; want none", diffs, err)
	}
	if err := Write(src, files, src); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(gone)); !os.IsNotExist(err) {
		t.Errorf("the stale generated file's folder is still there: %v", err)
	}
	edited := filepath.Join(out, "rbac", "role.yaml")
	if err := os.WriteFile(edited, []byte(Header+"edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if diffs, _ := Diff(out, files); !contains(diffs, "differs: rbac/role.yaml") {
		t.Errorf("Diff after an edit = %q, want rbac/role.yaml to differ", diffs)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestExtraWebhook(t *testing.T) {
	cases := map[string]struct {
		reason  string
		version string
		want    string // error, or "" for two validating webhooks
	}{
		"Served": {reason: "the Action kind's entry joins the validating configuration", version: "v1alpha1"},
		"NotServed": {
			reason: "an entry for a version the CRD does not serve is refused", version: "v1",
			want: "matches version v1, which actions.actions.azure.armature.dev does not serve",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := fixture(t)
			path := writeCRD(t, t.TempDir(), "actions.azure.armature.dev", "Action", "actions", "v1alpha1")
			entry := admissionregistrationv1.ValidatingWebhook{Name: "validate-action.armature.dev", Rules: []admissionregistrationv1.RuleWithOperations{{
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"actions.azure.armature.dev"}, APIVersions: []string{tc.version}, Resources: []string{"actions"}},
			}}}
			o.Extra = []ExtraCRD{{Path: path, Webhook: &entry}}
			files, err := Render(o)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s\nerror = %v, want %q", tc.reason, err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			docs, err := documents(files["webhook/manifests.yaml"])
			if err != nil {
				t.Fatal(err)
			}
			var v admissionregistrationv1.ValidatingWebhookConfiguration
			if err := yaml.Unmarshal(docs[0], &v); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, w := range v.Webhooks {
				names = append(names, w.Name)
			}
			if diff := cmp.Diff([]string{"validate.armature.dev", "validate-action.armature.dev"}, names); diff != "" {
				t.Errorf("%s\nvalidating webhooks: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCertsRole(t *testing.T) {
	type rule struct{ Group, Resource, Names, Verbs string }
	flatten := func(t *testing.T, files Files) []rule {
		t.Helper()
		docs, err := documents(files["components/webhook-certs/role.yaml"])
		if err != nil {
			t.Fatal(err)
		}
		var out []rule
		for _, d := range docs {
			var r rbacv1.ClusterRole // a Role has the same shape
			if err := yaml.Unmarshal(d, &r); err != nil {
				t.Fatal(err)
			}
			for _, pr := range r.Rules {
				out = append(out, rule{r.Kind + ":" + pr.APIGroups[0], strings.Join(pr.Resources, ","), strings.Join(pr.ResourceNames, ","), strings.Join(pr.Verbs, ",")})
			}
		}
		return out
	}
	webhooks := []rule{
		{"ClusterRole:admissionregistration.k8s.io", "mutatingwebhookconfigurations", "armature-defaulting", "get,list,update,watch"},
		{"ClusterRole:admissionregistration.k8s.io", "validatingwebhookconfigurations", "armature-validating", "get,list,update,watch"},
	}
	secret := rule{"Role:", "secrets", CertificateName, "get,list,update,watch"}
	cases := map[string]struct {
		reason string
		kinds  string
		want   []rule
	}{
		"Converting": {
			reason: "the CRD with two versions is named; list and watch of CRDs are not",
			want: append(append(append([]rule{}, webhooks...),
				rule{"ClusterRole:apiextensions.k8s.io", "customresourcedefinitions", "", "list,watch"},
				rule{"ClusterRole:apiextensions.k8s.io", "customresourcedefinitions", "storageaccounts.storage.azure.armature.dev", "get,update"}),
				secret),
		},
		"NoneConverting": {
			reason: "no CRD converts: no CRD rule at all (empty resourceNames would grant every CRD)",
			kinds:  "resources.*/*",
			want:   append(append([]rule{}, webhooks...), secret),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := fixture(t)
			o.Kinds = tc.kinds
			files, err := Render(o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, flatten(t, files)); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
