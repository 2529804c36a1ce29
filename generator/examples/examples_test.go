package examples_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/examples"
)

const input = "../testdata/contoso/input"

func widget(t *testing.T) (*generator.Analysis, examples.Example) {
	t.Helper()
	a, err := generator.Analyze(generator.Options{SpecRoot: input, Files: []string{"widgets.json"}})
	if err != nil {
		t.Fatal(err)
	}
	exs, errs := examples.Load(input, a.Tree.Resource("Microsoft.Contoso/widgets"))
	if len(errs) > 0 || len(exs) != 1 {
		t.Fatalf("examples: %v %v", exs, errs)
	}
	return a, exs[0]
}

func TestToCR(t *testing.T) {
	a, ex := widget(t)
	k := a.Model.Kinds["microsoft.contoso/widgets"]
	cr := examples.ToCR(k, ex)
	if diff := cmp.Diff([]string{"id", "properties.provisioningState"}, cr.Dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"properties.adminPassword", "properties.unlockCode"}, cr.Secrets); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	spec := cr.Object["spec"].(map[string]any)
	if spec["azureName"] != "Widget_01" || cr.Object["metadata"].(map[string]any)["name"] != "widget-01" {
		t.Errorf("names: azureName %v, metadata %v", spec["azureName"], cr.Object["metadata"])
	}
	if owner := spec["owner"].(map[string]any)["name"]; owner != "team-a" {
		t.Errorf("owner = %v", owner)
	}
	ref := spec["properties"].(map[string]any)["adminPassword"].(map[string]any)
	if ref["name"] != "widget-01-secrets" || ref["key"] != "adminPassword" {
		t.Errorf("secret reference = %v", ref)
	}
	if _, ok := ex.Body["id"]; !ok {
		t.Error("ToCR must not modify the example")
	}
	// A property spelt in another case (ARM reads names without regard to
	// case) is written as the swagger has it.
	ex.Body["properties"].(map[string]any)["Color"] = ex.Body["properties"].(map[string]any)["color"]
	delete(ex.Body["properties"].(map[string]any), "color")
	recased := examples.ToCR(k, ex)
	if diff := cmp.Diff([]string{"properties.Color"}, recased.Recased); diff != "" {
		t.Errorf("recased (-want +got):\n%s", diff)
	}
	if _, ok := recased.Object["spec"].(map[string]any)["properties"].(map[string]any)["color"]; !ok {
		t.Error("Color must become color")
	}
	if n, ok := spec["properties"].(map[string]any)["size"].(int64); !ok || n != 3 {
		t.Errorf("integers must decode as int64 like the apiserver's, got %T", spec["properties"].(map[string]any)["size"])
	}
}

func TestValidator(t *testing.T) {
	a, ex := widget(t)
	raw, err := os.ReadFile("../testdata/contoso/expected/crds/contoso.azure.armature.dev_widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, err := examples.NewValidator(raw)
	if err != nil {
		t.Fatal(err)
	}
	k := a.Model.Kinds["microsoft.contoso/widgets"]
	v.WithRequired(k.RequiredPaths())
	good := examples.ToCR(k, ex).Object
	if res := v.Check(good); !res.OK() {
		t.Fatalf("the example must be accepted: %s", res)
	}
	// An explicit null of an optional property is dropped, as the apiserver
	// drops non-nullable nulls without a default when it decodes the object.
	withNull := examples.ToCR(k, ex).Object
	withNull["spec"].(map[string]any)["properties"].(map[string]any)["size"] = nil
	withNull["spec"].(map[string]any)["tags"] = nil
	if res := v.Check(withNull); !res.OK() {
		t.Errorf("nulls of optional properties must be dropped, not rejected: %s", res)
	}
	cases := map[string]struct {
		mutate func(spec map[string]any)
		want   string
	}{
		"RequiredNullIsMissing": {
			mutate: func(spec map[string]any) { spec["location"] = nil },
			want:   "spec.location: Required value",
		},
		"UnknownFieldIsPruned": {
			mutate: func(spec map[string]any) { spec["properties"].(map[string]any)["bogus"] = 1 },
			want:   "pruned: spec.properties.bogus",
		},
		"ReadOnlyValueIsPruned": {
			mutate: func(spec map[string]any) { spec["id"] = "/x" },
			want:   "pruned: spec.id",
		},
		"ClosedEnum": {
			mutate: func(spec map[string]any) { spec["properties"].(map[string]any)["color"] = "purple" },
			want:   "spec.properties.color: Unsupported value",
		},
		"Maximum": {
			mutate: func(spec map[string]any) { spec["properties"].(map[string]any)["size"] = int64(11) },
			want:   "spec.properties.size: Invalid value",
		},
		"Pattern": {
			mutate: func(spec map[string]any) { spec["sku"].(map[string]any)["name"] = "no spaces allowed" },
			want:   "spec.sku.name",
		},
		"Required": {
			mutate: func(spec map[string]any) { delete(spec, "location") },
			want:   "spec.location: Required value",
		},
		"SecretValueInsteadOfReference": {
			mutate: func(spec map[string]any) { spec["properties"].(map[string]any)["adminPassword"] = "hunter2" },
			want:   "spec.properties.adminPassword",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obj := examples.ToCR(k, ex).Object
			tc.mutate(obj["spec"].(map[string]any))
			res := v.Check(obj)
			if res.OK() || !strings.Contains(res.String(), tc.want) {
				t.Errorf("result %q, want it to contain %q", res, tc.want)
			}
		})
	}
}
