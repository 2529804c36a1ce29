package emit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"sigs.k8s.io/yaml"
)

// TestCRDsAreValid runs the apiserver's own CRD validation — structural
// schema, CEL compilation and cost budgets — over every committed CRD and
// every golden CRD, and checks the size limit.
func TestCRDsAreValid(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../generated/crds/*.yaml", "../testdata/*/expected/crds/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no CRDs found")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) > MaxCRDBytes {
				t.Errorf("%d bytes, limit %d", len(raw), MaxCRDBytes)
			}
			if !strings.HasPrefix(string(raw), "# "+Header+"\n") {
				t.Error("missing the generated-file header")
			}
			var v1 apiextv1.CustomResourceDefinition
			if err := yaml.UnmarshalStrict(raw, &v1); err != nil {
				t.Fatal(err)
			}
			var crd apiextensions.CustomResourceDefinition
			if err := apiextv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &crd, nil); err != nil {
				t.Fatal(err)
			}
			// The apiserver records the storage version on create.
			for _, v := range crd.Spec.Versions {
				if v.Storage {
					crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
				}
			}
			if errs := validation.ValidateCustomResourceDefinition(context.Background(), &crd); len(errs) > 0 {
				for _, e := range errs {
					t.Error(e)
				}
			}
		})
	}
}

func TestFinishCRDShortensDescriptions(t *testing.T) {
	long := strings.Repeat("word ", 2000)
	props := map[string]apiextv1.JSONSchemaProps{}
	for i := 0; i < 40; i++ {
		props[strings.Repeat("p", i+1)] = apiextv1.JSONSchemaProps{Type: "string", Description: long}
	}
	crd := &apiextv1.CustomResourceDefinition{
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "x.example.dev",
			Names: apiextv1.CustomResourceDefinitionNames{Kind: "X", Plural: "xs"},
			Scope: apiextv1.NamespaceScoped,
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object", Description: "root", Properties: props}}}},
		},
	}
	raw, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) <= MaxCRDBytes {
		t.Fatalf("test input must be over the limit, is %d bytes", len(raw))
	}
	out, note, err := finishCRD("x.yaml", raw, DescriptionsFit, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > MaxCRDBytes || note == "" {
		t.Errorf("fit: %d bytes, note %q", len(out), note)
	}
	if !strings.Contains(string(out), "description: root") {
		t.Error("the root description must be kept")
	}
	out, _, err = finishCRD("x.yaml", raw, DescriptionsNone, true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(out), "description:") != 1 {
		t.Errorf("none: want only the root description, got %d", strings.Count(string(out), "description:"))
	}
}

func TestDocLinesCannotBeMarkers(t *testing.T) {
	got := docLines("Sets the size.\n  +kubebuilder:validation:Minimum=3\r\nDone.")
	for _, l := range got {
		if strings.HasPrefix(strings.TrimSpace(l), "+") {
			t.Errorf("line %q would be read as a marker", l)
		}
	}
	if len(got) != 3 {
		t.Errorf("lines = %q", got)
	}
}

// deepStatus is an object schema nested n levels, each level with w string
// properties.
func deepStatus(n, w int) apiextv1.JSONSchemaProps {
	s := apiextv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{}}
	for i := 0; i < w; i++ {
		s.Properties[fmt.Sprintf("field%03d", i)] = apiextv1.JSONSchemaProps{Type: "string"}
	}
	if n > 0 {
		s.Properties["next"] = deepStatus(n-1, w)
		s.Properties["list"] = apiextv1.JSONSchemaProps{Type: "array", Items: &apiextv1.JSONSchemaPropsOrArray{Schema: ptr(deepStatus(n-1, w/2))}}
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func TestFinishCRDCollapsesDeepStatusNotSpec(t *testing.T) {
	spec := deepStatus(3, 200)
	conditions := apiextv1.JSONSchemaProps{Type: "array", XListType: ptr("map"), XListMapKeys: []string{"type"},
		Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &apiextv1.JSONSchemaProps{Type: "object", Required: []string{"type"}, Properties: map[string]apiextv1.JSONSchemaProps{"type": {Type: "string"}}}}}
	status := deepStatus(6, 100)
	status.Properties["conditions"] = conditions
	crd := &apiextv1.CustomResourceDefinition{
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "x.example.dev",
			Names: apiextv1.CustomResourceDefinitionNames{Kind: "X", Plural: "xs"},
			Scope: apiextv1.NamespaceScoped,
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{"spec": spec, "status": status}}}}},
		},
	}
	raw, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) <= MaxCRDBytes {
		t.Fatalf("test input must be over the limit, is %d bytes", len(raw))
	}
	out, note, err := finishCRD("x.yaml", raw, DescriptionsFit, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > MaxCRDBytes || !strings.Contains(note, "status kept to level") {
		t.Fatalf("%d bytes, note %q", len(out), note)
	}
	var got apiextv1.CustomResourceDefinition
	if err := yaml.Unmarshal(out[strings.Index(string(out), "---")+4:], &got); err != nil {
		t.Fatal(err)
	}
	root := got.Spec.Versions[0].Schema.OpenAPIV3Schema
	if diff := cmp.Diff(spec, root.Properties["spec"]); diff != "" {
		t.Errorf("the spec must be kept whole (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(conditions, root.Properties["status"].Properties["conditions"]); diff != "" {
		t.Errorf("status.conditions must be kept (-want +got):\n%s", diff)
	}
	// Somewhere below status an object preserves unknown fields, and the
	// first level is still typed.
	st := root.Properties["status"]
	if _, ok := st.Properties["field000"]; !ok || st.Properties["next"].XPreserveUnknownFields != nil {
		t.Errorf("the first levels of status must stay typed")
	}
	if !strings.Contains(string(out), "x-kubernetes-preserve-unknown-fields: true") {
		t.Error("no status object was collapsed")
	}

	// A spec over the limit on its own is an error: it is never cut.
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = deepStatus(2, 3000)
	raw, _ = yaml.Marshal(crd)
	if _, _, err := finishCRD("x.yaml", raw, DescriptionsFit, true); err == nil || !strings.Contains(err.Error(), "spec alone") {
		t.Errorf("err = %v, want the spec named", err)
	}
}

// TestShallowStatus: by default a CRD's status keeps its first level —
// scalars typed, the operator's conditions whole — and every object below
// it preserves unknown fields; the spec is untouched. FullStatus keeps it
// all.
func TestShallowStatus(t *testing.T) {
	spec := deepStatus(3, 4)
	conditions := apiextv1.JSONSchemaProps{Type: "array", XListType: ptr("map"), XListMapKeys: []string{"type"},
		Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &apiextv1.JSONSchemaProps{Type: "object", Required: []string{"type"}, Properties: map[string]apiextv1.JSONSchemaProps{"type": {Type: "string"}}}}}
	status := deepStatus(3, 4)
	status.Properties["conditions"] = conditions
	crd := &apiextv1.CustomResourceDefinition{
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "x.example.dev",
			Names: apiextv1.CustomResourceDefinitionNames{Kind: "X", Plural: "xs"},
			Scope: apiextv1.NamespaceScoped,
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{"spec": spec, "status": status}}}}},
		},
	}
	raw, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	root := func(full bool) apiextv1.JSONSchemaProps {
		out, _, err := finishCRD("x.yaml", raw, DescriptionsFit, full)
		if err != nil {
			t.Fatal(err)
		}
		var got apiextv1.CustomResourceDefinition
		if err := yaml.Unmarshal(out[strings.Index(string(out), "---")+4:], &got); err != nil {
			t.Fatal(err)
		}
		return *got.Spec.Versions[0].Schema.OpenAPIV3Schema
	}
	shallow := root(false)
	if diff := cmp.Diff(spec, shallow.Properties["spec"], cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("the spec must be kept whole (-want +got):\n%s", diff)
	}
	st := shallow.Properties["status"]
	if diff := cmp.Diff(conditions, st.Properties["conditions"], cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("status.conditions must be kept (-want +got):\n%s", diff)
	}
	if st.Properties["field000"].Type != "string" {
		t.Errorf("a scalar of status lost its type: %+v", st.Properties["field000"])
	}
	next := st.Properties["next"]
	if next.XPreserveUnknownFields == nil || !*next.XPreserveUnknownFields || len(next.Properties) > 0 {
		t.Errorf("status.next must be an object that preserves unknown fields, is %+v", next)
	}
	if list := st.Properties["list"]; list.Items == nil || list.Items.Schema.XPreserveUnknownFields == nil {
		t.Errorf("the items of status.list must preserve unknown fields, are %+v", list.Items)
	}
	if diff := cmp.Diff(status, root(true).Properties["status"], cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("FullStatus must keep the status (-want +got):\n%s", diff)
	}
}
