package manifests

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/hack/manifests/render"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/test/envtestutil"
	"github.com/armature-dev/armature/webhook"
)

// selected is what the operator runs for a --kinds value.
func selected(kinds string) ([]*descriptor.Descriptor, error) {
	c := operator.Config{Kinds: kinds}
	return c.Selected(apis.Descriptors())
}

// TestKindsVariant renders config/ for chosen kinds and checks that the
// CRDs, the ClusterRole, the webhook rules and ARMATURE_KINDS are those
// kinds' only, and that the variant applies.
func TestKindsVariant(t *testing.T) {
	const kinds = "resources.*/*,storage.*/StorageAccount"
	o := render.DefaultOptions(envtestutil.RepoRoot(), apis.Descriptors())
	o.Kinds = kinds
	dir := renderInto(t, o)
	ds, err := selected(kinds)
	if err != nil {
		t.Fatal(err)
	}
	var wantCRDs, wantResources []string
	for _, d := range ds {
		wantCRDs = append(wantCRDs, webhook.Resource(d)+"."+d.Group)
		wantResources = append(wantResources, d.Group+"/"+webhook.Resource(d))
	}
	// A kind with several versions has a Descriptor per version.
	sort.Strings(wantCRDs)
	wantCRDs = slices.Compact(wantCRDs)
	sort.Strings(wantResources)
	wantResources = slices.Compact(wantResources)
	if len(ds) < 2 {
		t.Fatalf("%q selects %d kinds: the test wants several", kinds, len(ds))
	}

	objs := build(t, filepath.Join(dir, "default"))
	var gotCRDs []string
	for _, c := range find(objs, "CustomResourceDefinition", "") {
		gotCRDs = append(gotCRDs, c.GetName())
	}
	sort.Strings(gotCRDs)
	if diff := cmp.Diff(wantCRDs, gotCRDs); diff != "" {
		t.Errorf("CRDs: -want +got:\n%s", diff)
	}
	var gotResources []string
	rules, _, _ := unstructured.NestedSlice(one(t, objs, "ClusterRole", render.RoleName).Object, "rules")
	for _, r := range rules {
		rm := r.(map[string]any)
		for _, g := range rm["apiGroups"].([]any) {
			for _, res := range rm["resources"].([]any) {
				if g != "" && !strings.Contains(res.(string), "/") {
					gotResources = append(gotResources, g.(string)+"/"+res.(string))
				}
			}
		}
	}
	sort.Strings(gotResources)
	if diff := cmp.Diff(wantResources, gotResources); diff != "" {
		t.Errorf("ClusterRole kinds: -want +got:\n%s", diff)
	}
	cm := one(t, objs, "ConfigMap", "")
	if got, _, _ := unstructured.NestedString(cm.Object, "data", "ARMATURE_KINDS"); got != kinds {
		t.Errorf("ARMATURE_KINDS = %q, want %q", got, kinds)
	}
	apply(t, objs, "")

	withWebhook := build(t, filepath.Join(dir, "certmanager"))
	checkWebhookServing(t, withWebhook, wantRules(t, kinds))
	apply(t, withWebhook, "")
}

// TestConversionComponent enables components/conversion over a render
// holding a CRD with two versions and checks that the CRD, patched to
// convert through the operator, is accepted.
func TestConversionComponent(t *testing.T) {
	root := t.TempDir()
	crds := filepath.Join(root, "crds")
	if err := os.Mkdir(crds, 0o755); err != nil {
		t.Fatal(err)
	}
	const name = "widgets.conversiontest.armature.dev"
	crd := render.Header + `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + name + `
spec:
  group: conversiontest.armature.dev
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`
	if err := os.WriteFile(filepath.Join(crds, "widgets.yaml"), []byte(crd), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := renderInto(t, render.Options{Root: root, CRDDir: crds})
	overlay := filepath.Join(filepath.Dir(dir), "overlay")
	if err := os.Mkdir(overlay, 0o755); err != nil {
		t.Fatal(err)
	}
	kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: armature-system\nresources:\n- ../config/crd\ncomponents:\n- ../config/components/conversion\n"
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(kust), 0o644); err != nil {
		t.Fatal(err)
	}
	objs := build(t, overlay)
	got := one(t, objs, "CustomResourceDefinition", name)
	if s, _, _ := unstructured.NestedString(got.Object, "spec", "conversion", "strategy"); s != "Webhook" {
		t.Errorf("conversion strategy = %q, want Webhook", s)
	}
	svc, _, _ := unstructured.NestedMap(got.Object, "spec", "conversion", "webhook", "clientConfig", "service")
	want := map[string]any{"name": webhook.DefaultServiceName, "namespace": webhook.DefaultServiceNamespace, "path": render.ConversionPath, "port": int64(webhook.DefaultServicePort)}
	if diff := cmp.Diff(want, svc); diff != "" {
		t.Errorf("conversion service: -want +got:\n%s", diff)
	}
	apply(t, objs, "")
}

// TestCommittedConversionComponent builds config/crd with
// components/conversion and checks that exactly the CRDs serving several
// versions convert through the operator, and that the apiserver accepts
// them (by dry-run: the operator does not serve conversions here).
func TestCommittedConversionComponent(t *testing.T) {
	apply(t, build(t, filepath.Join(configDir(), "crd")), "")
	overlay := t.TempDir()
	rel, err := filepath.Rel(overlay, configDir())
	if err != nil {
		t.Fatal(err)
	}
	kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- " + filepath.ToSlash(filepath.Join(rel, "crd")) +
		"\ncomponents:\n- " + filepath.ToSlash(filepath.Join(rel, "components", "conversion")) + "\n"
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(kust), 0o644); err != nil {
		t.Fatal(err)
	}
	multi := 0
	for _, crd := range build(t, overlay) {
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		served := 0
		for _, v := range versions {
			if v.(map[string]any)["served"] == true {
				served++
			}
		}
		strategy, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy")
		path, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "service", "path")
		switch {
		case served > 1 && (strategy != "Webhook" || path != render.ConversionPath):
			t.Errorf("%s serves %d versions but converts by %q at %q", crd.GetName(), served, strategy, path)
		case served <= 1 && strategy != "":
			t.Errorf("%s serves one version but has conversion %q", crd.GetName(), strategy)
		}
		if served <= 1 {
			continue
		}
		multi++
		if err := k8s.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(crd), client.FieldOwner(fieldOwner), client.ForceOwnership, client.DryRunAll); err != nil {
			t.Errorf("dry-run apply %s with conversion: %v", crd.GetName(), err)
		}
	}
	t.Logf("%d CRDs serve several versions", multi)
}

// TestOperatorAcceptsItsArgs parses the Deployment's arguments (every
// overlay's) with the operator's own flags, as cmd/operator binds them, and
// checks the ConfigMap's keys are variables the operator reads.
func TestOperatorAcceptsItsArgs(t *testing.T) {
	envs := map[string]func(c *operator.Config) string{
		"ARMATURE_KINDS":            func(c *operator.Config) string { return c.Kinds },
		"ARMATURE_WATCH_NAMESPACES": func(c *operator.Config) string { return strings.Join(c.WatchNamespaces, ",") },
		"AZURE_SUBSCRIPTION_ID":     func(c *operator.Config) string { return c.Reconciler.SubscriptionID },
	}
	for _, overlay := range []string{"default", "certmanager"} {
		t.Run(overlay, func(t *testing.T) {
			objs := build(t, filepath.Join(configDir(), overlay))
			args := operatorContainer(t, one(t, objs, "Deployment", "armature-operator")).Args
			fs := flag.NewFlagSet("operator", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var cfg operator.Config
			cfg.BindFlags(fs)
			zopts := zap.Options{Development: true}
			zopts.BindFlags(fs)
			if err := fs.Parse(args); err != nil {
				t.Errorf("the operator refuses its args %q: %v", args, err)
			}
			if fs.NArg() != 0 {
				t.Errorf("args %q leave %q unparsed", args, fs.Args())
			}
			if !cfg.LeaderElection {
				t.Error("leader election is off")
			}
			data, _, _ := unstructured.NestedStringMap(one(t, objs, "ConfigMap", "").Object, "data")
			for k := range data {
				get, ok := envs[k]
				if !ok {
					t.Errorf("ConfigMap key %s is no variable the operator reads", k)
					continue
				}
				t.Setenv(k, "sentinel")
				var c operator.Config
				c.BindFlags(flag.NewFlagSet("env", flag.ContinueOnError))
				if got := get(&c); got != "sentinel" {
					t.Errorf("the operator does not read %s (got %q)", k, got)
				}
			}
			if !cfg.Webhook {
				t.Errorf("args %q do not serve the webhook", args)
			}
			// config/default: the certificate the operator manages in the
			// Secret it ships; config/certmanager: cert-manager's, mounted.
			secrets := find(objs, "Secret", "")
			switch overlay {
			case "default":
				if len(secrets) != 1 || cfg.WebhookCerts.SecretName != secrets[0].GetName() || cfg.CertDir != "" {
					t.Errorf("--webhook-cert-secret %q, --cert-dir %q, %d Secrets in the build: want the certificate managed in the shipped Secret", cfg.WebhookCerts.SecretName, cfg.CertDir, len(secrets))
				}
			case "certmanager":
				if len(secrets) != 0 || cfg.WebhookCerts.SecretName != "" || cfg.CertDir == "" {
					t.Errorf("--webhook-cert-secret %q, --cert-dir %q, %d Secrets in the build: want cert-manager's certificate mounted", cfg.WebhookCerts.SecretName, cfg.CertDir, len(secrets))
				}
			}
		})
	}
}
