package webhook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// TestSamplesAdmitted admits every generated sample (real x-ms-examples
// bodies) as a create, then as an update that changes spec outside the
// property table:
// the webhook must not refuse what the generator calls valid.
func TestSamplesAdmitted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "generated", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples in generated/samples: %v", err)
	}
	reg := New(allDescriptors())
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(b, []byte("\n---")) {
			j, err := yaml.YAMLToJSON(doc)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			obj, err := decodeObject(j)
			if err != nil || obj["kind"] == nil {
				continue
			}
			n++
			gv, _ := schema.ParseGroupVersion(str(obj, "apiVersion"))
			gvk := gv.WithKind(str(obj, "kind"))
			t.Run(filepath.Base(f), func(t *testing.T) {
				ctx := context.Background()
				for _, h := range []struct {
					name string
					resp func() []string
				}{
					{"create", func() []string {
						return verdict(t, reg.ValidatingHandler().Handle(ctx, request(t, admissionv1.Create, gvk, obj, nil)))
					}},
					{"update", func() []string {
						cur := object(t, string(j))
						// A property no Descriptor knows: spec differs, so
						// every check runs, and none can object to it.
						cur["spec"].(map[string]any)["touched"] = true
						return verdict(t, reg.ValidatingHandler().Handle(ctx, request(t, admissionv1.Update, gvk, cur, obj)))
					}},
					{"default", func() []string {
						return verdict(t, reg.DefaultingHandler().Handle(ctx, request(t, admissionv1.Create, gvk, obj, nil)))
					}},
				} {
					if got := h.resp(); got != nil {
						t.Errorf("%s refused: %v", h.name, got)
					}
				}
			})
		}
	}
	if n < len(files) {
		t.Errorf("read %d samples from %d files", n, len(files))
	}
}
