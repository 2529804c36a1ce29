package helm

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/hack/manifests/render"
)

// TestLint runs helm lint --strict with the default values and with a
// choice of groups.
func TestLint(t *testing.T) {
	needHelm(t)
	for name, values := range map[string]map[string]any{
		"Defaults":   nil,
		"Choice":     {"groups": []string{"storage", "resources"}, "webhook": map[string]any{"enabled": false}},
		"Generated":  {"generatedGroups": []string{"containerregistry.azure.armature.dev"}},
		"Everything": {"metrics": map[string]any{"enabled": false}, "replicas": 1, "leaderElection": map[string]any{"enabled": false}},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := helm("lint", "--strict", chartDir(), "--namespace", releaseNamespace, "-f", valuesFile(t, values))
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !bytes.Contains(out, []byte("0 chart(s) failed")) {
				t.Errorf("helm lint:\n%s", out)
			}
		})
	}
}

// TestWebhookOff renders the chart without the webhook and compares it
// with the overlay docs/deploy.md gives for that (config/crd, config/rbac,
// config/manager in armature-system): no webhook configurations, Service,
// certificate or its RBAC, no webhook flags or port, no CRD conversion.
func TestWebhookOff(t *testing.T) {
	dir := t.TempDir()
	overlay := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: " + render.Namespace + "\nresources:\n"
	for _, r := range []string{"crd", "rbac", "manager"} {
		rel, err := filepath.Rel(dir, filepath.Join(configDir(), r))
		if err != nil {
			t.Fatal(err)
		}
		overlay += "- " + filepath.ToSlash(rel) + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(overlay), 0o644); err != nil {
		t.Fatal(err)
	}
	chart := byID(t, rendered(t, map[string]any{"webhook": map[string]any{"enabled": false}}))
	compareBuilds(t, byID(t, kustomize(t, dir)), chart, "config/{crd,rbac,manager}")
}

// TestNamespace renders into another namespace: every namespaced object,
// binding subject, webhook and conversion Service reference is there, and
// armature-system is named nowhere.
func TestNamespace(t *testing.T) {
	const ns = "team-ops"
	needHelm(t)
	out, err := helm("template", releaseName, chartDir(), "--namespace", ns)
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(out, []byte(render.Namespace)); i >= 0 {
		t.Errorf("the render names %s: %q", render.Namespace, out[max(0, i-200):min(len(out), i+50)])
	}
	namespaced := 0
	for _, o := range decode(t, out) {
		switch o.GetKind() {
		case "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			if o.GetNamespace() != "" {
				t.Errorf("%s %s is cluster-scoped but has namespace %q", o.GetKind(), o.GetName(), o.GetNamespace())
			}
		default:
			namespaced++
			if o.GetNamespace() != ns {
				t.Errorf("%s %s is in namespace %q, want %q", o.GetKind(), o.GetName(), o.GetNamespace(), ns)
			}
		}
		subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
		for _, s := range subjects {
			if got := s.(map[string]any)["namespace"]; got != ns {
				t.Errorf("%s %s binds a subject in %v", o.GetKind(), o.GetName(), got)
			}
		}
	}
	if namespaced < 10 {
		t.Errorf("%d namespaced objects: the render is not the chart's", namespaced)
	}
	if got := bytes.Count(out, []byte("namespace: "+ns)); got < namespaced+20 {
		t.Errorf("%d mentions of namespace %s: the webhook and conversion Services' references are not there", got, ns)
	}
}

// TestValues sets values one group at a time and checks their effect on
// the objects and on the operator's configuration (its args and
// environment parsed by Config.BindFlags).
func TestValues(t *testing.T) {
	cases := map[string]struct {
		values map[string]any
		check  func(t *testing.T, objs []*unstructured.Unstructured)
	}{
		"MetricsOff": {
			values: map[string]any{"metrics": map[string]any{"enabled": false}},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				if cfg := operatorConfig(t, objs); cfg.MetricsAddr != "0" {
					t.Errorf("--metrics-bind-address = %q, want 0", cfg.MetricsAddr)
				}
				for _, o := range []struct{ kind, name string }{{"Service", "armature-operator-metrics"}, {"ClusterRole", "armature-metrics-auth"}, {"ClusterRoleBinding", "armature-metrics-auth"}, {"ClusterRole", "armature-metrics-reader"}} {
					if one(objs, o.kind, o.name) != nil {
						t.Errorf("%s %s is rendered without metrics", o.kind, o.name)
					}
				}
			},
		},
		"MetricsInsecure": {
			values: map[string]any{"metrics": map[string]any{"secure": false}},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				if cfg := operatorConfig(t, objs); !cfg.InsecureMetrics || cfg.MetricsAddr != ":8443" {
					t.Errorf("metrics on %q, insecure %v: want :8443 over HTTP", cfg.MetricsAddr, cfg.InsecureMetrics)
				}
				if one(objs, "ClusterRole", "armature-metrics-auth") != nil || one(objs, "Service", "armature-operator-metrics") == nil {
					t.Error("insecure metrics: want the Service and no TokenReview/SubjectAccessReview rights")
				}
			},
		},
		"OneReplicaNoLeaderElection": {
			values: map[string]any{"replicas": 1, "leaderElection": map[string]any{"enabled": false}},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				if cfg := operatorConfig(t, objs); cfg.LeaderElection {
					t.Error("--leader-elect is set")
				}
				if one(objs, "Role", "armature-leader-election") != nil || one(objs, "RoleBinding", "armature-leader-election") != nil {
					t.Error("the leader election Role is rendered without leader election")
				}
				if r, _, _ := unstructured.NestedInt64(one(objs, "Deployment", "armature-operator").Object, "spec", "replicas"); r != 1 {
					t.Errorf("replicas = %d, want 1", r)
				}
			},
		},
		"Credentials": {
			values: map[string]any{
				"azure": map[string]any{"workloadIdentity": map[string]any{"clientID": "11111111-2222-3333-4444-555555555555"}, "credentialsSecret": "azure-sp"},
				"env":   map[string]any{"AZURE_SUBSCRIPTION_ID": "00000000-0000-0000-0000-000000000001", "ARMATURE_DEFAULT_CREDENTIAL_NAMESPACES": "team-a,team-b", "ARMATURE_WATCH_NAMESPACES": "team-a"},
			},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				cfg := operatorConfig(t, objs)
				if cfg.Reconciler.SubscriptionID != "00000000-0000-0000-0000-000000000001" || !slices.Equal(cfg.DefaultCredentialNamespaces, []string{"team-a", "team-b"}) || !slices.Equal(cfg.WatchNamespaces, []string{"team-a"}) {
					t.Errorf("subscription %q, credential namespaces %q, watched %q", cfg.Reconciler.SubscriptionID, cfg.DefaultCredentialNamespaces, cfg.WatchNamespaces)
				}
				sa := one(objs, "ServiceAccount", "armature-operator")
				if got := sa.GetAnnotations()["azure.workload.identity/client-id"]; got != "11111111-2222-3333-4444-555555555555" {
					t.Errorf("ServiceAccount client-id annotation %q", got)
				}
				dep := one(objs, "Deployment", "armature-operator")
				labels, _, _ := unstructured.NestedStringMap(dep.Object, "spec", "template", "metadata", "labels")
				if labels["azure.workload.identity/use"] != "true" {
					t.Errorf("pod labels %v: no azure.workload.identity/use", labels)
				}
				envFrom, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
				if !strings.Contains(toJSON(t, envFrom), `"secretRef":{"name":"azure-sp"}`) {
					t.Errorf("the container does not read the Secret azure-sp: %s", toJSON(t, envFrom))
				}
			},
		},
		"ImageArgsScheduling": {
			values: map[string]any{
				"image":             map[string]any{"repository": "registry.example.com/armature-operator", "digest": "sha256:" + strings.Repeat("a", 64)},
				"extraArgs":         []string{"--sync-period=5m", "--workers-per-kind=4"},
				"nodeSelector":      map[string]any{"kubernetes.io/os": "linux"},
				"tolerations":       []any{map[string]any{"key": "dedicated", "operator": "Exists"}},
				"priorityClassName": "system-cluster-critical",
				"imagePullSecrets":  []any{map[string]any{"name": "pull"}},
				"resources":         map[string]any{"requests": map[string]any{"cpu": "200m", "memory": "512Mi"}},
				"podAnnotations":    map[string]any{"example.com/team": "ops"},
			},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				cfg := operatorConfig(t, objs)
				if cfg.Reconciler.SyncPeriod.String() != "5m0s" || cfg.Reconciler.WorkersPerKind != 4 {
					t.Errorf("extraArgs: sync period %v, workers %d", cfg.Reconciler.SyncPeriod, cfg.Reconciler.WorkersPerKind)
				}
				pod, _, _ := unstructured.NestedMap(one(objs, "Deployment", "armature-operator").Object, "spec", "template")
				got := toJSON(t, pod)
				for _, want := range []string{
					`"image":"registry.example.com/armature-operator@sha256:` + strings.Repeat("a", 64) + `"`,
					`"nodeSelector":{"kubernetes.io/os":"linux"}`,
					`"tolerations":[{"key":"dedicated","operator":"Exists"}]`,
					`"priorityClassName":"system-cluster-critical"`,
					`"imagePullSecrets":[{"name":"pull"}]`,
					`"requests":{"cpu":"200m","memory":"512Mi"}`,
					`"example.com/team":"ops"`,
				} {
					if !strings.Contains(got, want) {
						t.Errorf("the pod template lacks %s", want)
					}
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { tc.check(t, rendered(t, tc.values)) })
	}
}

// TestRefusals: values that cannot work fail the render, saying why.
func TestRefusals(t *testing.T) {
	cases := map[string]struct {
		values map[string]any
		want   string
	}{
		"UnknownGroup":      {map[string]any{"groups": []string{"storage", "nosuchgroup"}}, `groups: "nosuchgroup" is no API group of the chart`},
		"KindMatchingNone":  {map[string]any{"kinds": []string{"storage.azure.armature.dev/Nope*"}}, `kinds: "storage.azure.armature.dev/Nope*" matches no kind of the chart`},
		"CharacterClass":    {map[string]any{"kinds": []string{"storage.azure.armature.dev/[S]torageAccount"}}, `the chart matches * and ? only`},
		"KindsInEnv":        {map[string]any{"env": map[string]any{"ARMATURE_KINDS": "storage.azure.armature.dev/*"}}, "env.ARMATURE_KINDS: set the values groups and kinds instead"},
		"ReplicasNoLeader":  {map[string]any{"leaderElection": map[string]any{"enabled": false}}, "replicas > 1 needs leaderElection.enabled"},
		"BadGeneratedGroup": {map[string]any{"generatedGroups": []string{"Not_A_Group"}}, `generatedGroups: "Not_A_Group" is not an API group name`},
		"GroupsNotAList":    {map[string]any{"groups": "storage"}, "at '/groups': got string, want array"},
		"UnknownValue":      {map[string]any{"group": []string{"storage"}}, "additional properties 'group' not allowed"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := template(t, tc.values)
			if err == nil {
				t.Fatalf("rendered %d bytes, want the error %q", len(out), tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
