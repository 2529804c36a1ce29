package render

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// repoConfig is the committed config/, whose hand-written files the chart
// is built over.
const repoConfig = "../../../config"

// TestTmpl: markers are replaced by their fills, which see where they
// stand: a map value, a list item, a value of a map that is a list item.
func TestTmpl(t *testing.T) {
	var tm tmpl
	where := func(s slot) ([]string, error) {
		return []string{s.prefix() + "<lead " + `"` + s.Lead + `"` + " indent " + `"` + s.Indent + `"` + ">"}, nil
	}
	obj := map[string]any{
		"a":     tm.mark(inline("{{ .x }}")),
		"items": []any{map[string]any{"args": tm.mark(where), "name": "nm"}},
		"list":  []any{"one", tm.mark(where)},
		"map":   map[string]any{"b": tm.mark(where)},
	}
	got, err := tm.render(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := `a: {{ .x }}
items:
- args: <lead "- " indent "  ">
  name: nm
list:
- one
- <lead "- " indent "">
map:
  b: <lead "  " indent "  ">
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
	bad := tmpl{}
	if _, err := bad.render(map[string]any{"a": "x " + bad.mark(inline("y"))}); err == nil {
		t.Error("a marker inside a value was accepted")
	}
}

// TestChart renders the chart for the fixture's CRDs over config/'s
// hand-written files: every file generated, a file per CRD, the objects
// values turn off gated, the release namespace everywhere.
func TestChart(t *testing.T) {
	o := fixture(t)
	files, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	chart, err := Chart(o, files, repoConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"charts/" + CRDChart + "/files/storage.azure.armature.dev/storageaccounts.yaml",
		"charts/" + CRDChart + "/files/resources.azure.armature.dev/resourcegroups.yaml",
		"templates/_catalog.tpl", "templates/crd/crds.yaml", "values.yaml",
		"templates/manager/manager.yaml", "templates/rbac/role.yaml", "templates/webhook/manifests.yaml",
	} {
		if _, ok := chart[p]; !ok {
			t.Errorf("no %s among %q", p, chart.Paths())
		}
	}
	for p, content := range chart {
		if !IsGenerated(content) {
			t.Errorf("%s does not start with the generated header", p)
		}
		if strings.Contains(string(content), Namespace) {
			t.Errorf("%s names %s, not the release namespace", p, Namespace)
		}
		if strings.HasPrefix(p, "templates/namespace") || strings.Contains(string(content), "\nkind: Namespace\n") {
			t.Errorf("%s renders a Namespace: Helm's release namespace exists before the install", p)
		}
	}
	for p, gate := range map[string]string{
		"templates/rbac/leader_election_role.yaml":             leaderGate,
		"templates/rbac/metrics_auth_role.yaml":                metricsAuthGate,
		"templates/manager/metrics_service.yaml":               metricsGate,
		"templates/webhook/service.yaml":                       webhookGate,
		"templates/components/webhook-certs/secret.yaml":       webhookGate,
		"templates/components/webhook-certs/role.yaml":         webhookGate,
		"templates/components/webhook-certs/role_binding.yaml": webhookGate,
	} {
		if !bytes.Contains(chart[p], []byte("{{- if "+gate+" }}\n---\n")) {
			t.Errorf("%s is not gated on %s:\n%s", p, gate, chart[p])
		}
	}
	dep := string(chart["templates/manager/manager.yaml"])
	for _, want := range []string{
		"{{- if " + leaderGate + " }}\n        - --leader-elect\n",
		"{{- if " + webhookGate + " }}\n        - --webhook\n",
		"{{- if " + webhookGate + " }}\n        - containerPort: 9443\n",
		"replicas: {{ $.Values.replicas }}\n",
	} {
		if !strings.Contains(dep, want) {
			t.Errorf("the Deployment's template lacks %q", want)
		}
	}
	if catalog := string(chart["templates/_catalog.tpl"]); !strings.Contains(catalog, `"name":"storageaccounts.storage.azure.armature.dev","group":"storage.azure.armature.dev","kind":"StorageAccount","plural":"storageaccounts","file":"files/storage.azure.armature.dev/storageaccounts.yaml","converts":true`) ||
		!strings.Contains(catalog, `"kind":"ResourceGroup","plural":"resourcegroups","file":"files/resources.azure.armature.dev/resourcegroups.yaml","converts":false`) {
		t.Errorf("catalog:\n%s", catalog)
	}
}

// TestChartRefusals: the chart is rendered for every kind, and from a
// config/ it knows.
func TestChartRefusals(t *testing.T) {
	o := fixture(t)
	files, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	k := o
	k.Kinds = "storage.*/*"
	if _, err := Chart(k, files, repoConfig); err == nil || !strings.Contains(err.Error(), "every kind") {
		t.Errorf("Chart with -kinds: %v, want a refusal", err)
	}
	cases := map[string]struct {
		file, from, to string
		want           string
	}{
		"NoWebhookFolder": {"default/kustomization.yaml", "- ../webhook\n", "", "lack ../crd or ../webhook"},
		"NoLeaderRole":    {"rbac/kustomization.yaml", "- leader_election_role.yaml\n", "", "Role armature-leader-election"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := copyHandwritten(repoConfig, dir); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, filepath.FromSlash(tc.file))
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(raw, []byte(tc.from)) {
				t.Fatalf("%s has no %q", tc.file, tc.from)
			}
			if err := os.WriteFile(p, bytes.Replace(raw, []byte(tc.from), []byte(tc.to), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Chart(o, files, dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Chart: %v, want an error saying %q", err, tc.want)
			}
			if name == "NoLeaderRole" && !errors.Is(err, errNoObject) {
				t.Errorf("Chart: %v, want errNoObject", err)
			}
		})
	}
}

// TestCRDChartFile: a CRD file of the subchart starts at its apiVersion,
// and a CRD whose metadata the chart could not extend is refused.
func TestCRDChartFile(t *testing.T) {
	o := fixture(t)
	crds, err := readCRDs(o)
	if err != nil {
		t.Fatal(err)
	}
	out, err := crdChartFile(crds[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, body, _ := strings.Cut(string(out), "\napiVersion: "); !strings.Contains(string(out), "\n# Copied from ") || body == "" || strings.Contains(string(out), "---") {
		t.Errorf("CRD file:\n%s", out)
	}
	labelled := *crds[0]
	labelled.body = bytes.Replace(labelled.body, []byte("metadata:\n"), []byte("metadata:\n  labels:\n    a: b\n"), 1)
	if _, err := crdChartFile(&labelled); err == nil {
		t.Error("a CRD with labels was accepted")
	}
}
