package webhook

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestRulesMatchCRDs checks that the rules name exactly the resources the
// generated CRDs serve, so no kind escapes the webhook and no rule points
// at nothing.
func TestRulesMatchCRDs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "generated", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in generated/crds: %v", err)
	}
	want := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range crd.Spec.Versions {
			gv := crd.Spec.Group + "/" + v.Name
			want[gv] = append(want[gv], crd.Spec.Names.Plural)
		}
	}
	for _, rs := range want {
		sort.Strings(rs)
	}
	got := map[string][]string{}
	for _, r := range Rules(allDescriptors()) {
		if len(r.APIGroups) != 1 || len(r.APIVersions) != 1 {
			t.Fatalf("rule %+v: want one group and one version", r)
		}
		got[r.APIGroups[0]+"/"+r.APIVersions[0]] = r.Resources
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resources by group/version -want +got:\n%s", diff)
	}
}

// webhookShape is what TestConfigurations compares of one webhook.
type webhookShape struct {
	Config, Name, Path, URL, Service string
	Port                             int32
	CABundle                         string
	FailurePolicy                    admissionregistrationv1.FailurePolicyType
	SideEffects                      admissionregistrationv1.SideEffectClass
	Timeout                          int32
	Versions                         []string
	Operations                       []admissionregistrationv1.OperationType
	Rules                            int
}

func shapeOf(config string, wh admissionregistrationv1.ValidatingWebhook) webhookShape {
	s := webhookShape{
		Config: config, Name: wh.Name, CABundle: string(wh.ClientConfig.CABundle),
		FailurePolicy: *wh.FailurePolicy, SideEffects: *wh.SideEffects, Timeout: *wh.TimeoutSeconds,
		Versions: wh.AdmissionReviewVersions, Operations: wh.Rules[0].Operations, Rules: len(wh.Rules),
	}
	if cc := wh.ClientConfig; cc.Service != nil {
		s.Service, s.Path, s.Port = cc.Service.Namespace+"/"+cc.Service.Name, *cc.Service.Path, *cc.Service.Port
	} else {
		s.URL = *wh.ClientConfig.URL
	}
	return s
}

// TestConfigurations checks the settings the issue fixes, with defaults and
// with options.
func TestConfigurations(t *testing.T) {
	ds := allDescriptors()
	ops := []admissionregistrationv1.OperationType{"CREATE", "UPDATE"}
	// One rule per API group and version served.
	seen := map[string]bool{}
	for _, d := range ds {
		seen[d.GroupVersionKind().GroupVersion().String()] = true
	}
	groups := len(seen)
	cases := map[string]struct {
		opts []ConfigOption
		want []webhookShape
	}{
		"Defaults": {
			want: []webhookShape{
				{Config: "armature-validating", Name: "validate.armature.dev", Path: "/validate-armature", Service: "armature-system/armature-webhook", Port: 443,
					FailurePolicy: "Fail", SideEffects: "None", Timeout: 10, Versions: []string{"v1"}, Operations: ops, Rules: groups},
				{Config: "armature-defaulting", Name: "default.armature.dev", Path: "/default-armature", Service: "armature-system/armature-webhook", Port: 443,
					FailurePolicy: "Fail", SideEffects: "None", Timeout: 10, Versions: []string{"v1"}, Operations: ops, Rules: groups},
			},
		},
		"URLCATimeout": {
			opts: []ConfigOption{WithURL("https://127.0.0.1:9443/"), WithCABundle([]byte("PEM")), WithTimeout(5)},
			want: []webhookShape{
				{Config: "armature-validating", Name: "validate.armature.dev", URL: "https://127.0.0.1:9443/validate-armature", CABundle: "PEM",
					FailurePolicy: "Fail", SideEffects: "None", Timeout: 5, Versions: []string{"v1"}, Operations: ops, Rules: groups},
				{Config: "armature-defaulting", Name: "default.armature.dev", URL: "https://127.0.0.1:9443/default-armature", CABundle: "PEM",
					FailurePolicy: "Fail", SideEffects: "None", Timeout: 5, Versions: []string{"v1"}, Operations: ops, Rules: groups},
			},
		},
		"Service": {
			opts: []ConfigOption{WithURL("https://x"), WithService("ops", "hook", 8443)},
			want: []webhookShape{
				{Config: "armature-validating", Name: "validate.armature.dev", Path: "/validate-armature", Service: "ops/hook", Port: 8443,
					FailurePolicy: "Fail", SideEffects: "None", Timeout: 10, Versions: []string{"v1"}, Operations: ops, Rules: groups},
				{Config: "armature-defaulting", Name: "default.armature.dev", Path: "/default-armature", Service: "ops/hook", Port: 8443,
					FailurePolicy: "Fail", SideEffects: "None", Timeout: 10, Versions: []string{"v1"}, Operations: ops, Rules: groups},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := ValidatingWebhookConfiguration(ds, tc.opts...)
			m := MutatingWebhookConfiguration(ds, tc.opts...)
			mw := m.Webhooks[0]
			got := []webhookShape{
				shapeOf(v.Name, v.Webhooks[0]),
				shapeOf(m.Name, admissionregistrationv1.ValidatingWebhook{Name: mw.Name, ClientConfig: mw.ClientConfig, Rules: mw.Rules,
					FailurePolicy: mw.FailurePolicy, SideEffects: mw.SideEffects, TimeoutSeconds: mw.TimeoutSeconds, AdmissionReviewVersions: mw.AdmissionReviewVersions}),
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}
