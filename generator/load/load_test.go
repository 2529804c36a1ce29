package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const contoso = "../testdata/contoso/input"

func def(t *testing.T, l *Loader, file, name string) Schema {
	t.Helper()
	d, err := l.Load(file)
	if err != nil {
		t.Fatalf("Load(%s): %v", file, err)
	}
	s, ok := d.Swagger.Definitions[name]
	if !ok {
		t.Fatalf("%s has no definition %s", file, name)
	}
	return Schema{Schema: &s, Origin: Origin{File: d.Path, Pointer: "/definitions/" + name}, Name: name}
}

func names(ps []Property) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func TestLoadFollowsCrossFileCycle(t *testing.T) {
	l := New(contoso)
	if _, err := l.Load("widgets.json"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range l.Documents() {
		got = append(got, d.Path)
	}
	// widgets.json refers to common.json, which refers back to widgets.json.
	if diff := cmp.Diff([]string{"widgets.json", "common.json"}, got); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if _, err := l.Load("./widgets.json"); err != nil || len(l.Documents()) != 2 {
		t.Errorf("loading again must reuse the cached document, got %d documents, err %v", len(l.Documents()), err)
	}
}

func TestPropertiesMergeAllOfAcrossFiles(t *testing.T) {
	l := New(contoso)
	ps, err := l.Properties(def(t, l, "widgets.json", "Widget"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "kind", "location", "name", "properties", "sku", "tags", "type"}
	if diff := cmp.Diff(want, names(ps)); diff != "" {
		t.Errorf("Widget properties (-want +got):\n%s", diff)
	}
	for _, p := range ps {
		switch p.Name {
		case "location":
			if !p.Required {
				t.Error("location is required by TrackedResource and must stay required after allOf")
			}
			if m, ok := p.Mutability(); !ok || strings.Join(m, ",") != "read,create" {
				t.Errorf("location mutability = %v, %v", m, ok)
			}
		case "id":
			if !p.ReadOnly() {
				t.Error("id must be readOnly")
			}
			if got := p.Decl.Origin.String(); got != "common.json#/definitions/Resource/properties/id" {
				t.Errorf("id origin = %s", got)
			}
		case "sku":
			if got := p.Schema.Origin.String(); got != "common.json#/definitions/Sku" {
				t.Errorf("sku target origin = %s", got)
			}
		}
	}
}

func TestPropertiesChildOverridesParent(t *testing.T) {
	l := New(contoso)
	ps, err := l.Properties(def(t, l, "widgets.json", "WidgetResource"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Name == "sku" && !p.ReadOnly() {
			t.Error("WidgetResource redeclares sku readOnly; the child's declaration must win")
		}
	}
}

func TestPropertiesDiscriminatorUnion(t *testing.T) {
	l := New(contoso)
	shape := def(t, l, "widgets.json", "Shape")
	ps, err := l.Properties(shape)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"radius", "shapeType", "side", "unit"}, names(ps)); diff != "" {
		t.Errorf("Shape union (-want +got):\n%s", diff)
	}
	for _, p := range ps {
		if p.Name == "radius" && p.Required {
			t.Error("radius is required by the circle subtype only: not on the union")
		}
		if p.Name == "unit" && !p.Conflict {
			t.Error("unit has different enums in circle and Square: a conflict")
		}
		if p.Name == "shapeType" && !p.Required {
			t.Error("the base's own required properties stay required")
		}
	}
	sub := map[string]string{}
	for _, p := range ps {
		sub[p.Name] = p.Subtype
	}
	if sub["radius"] != "circle" || sub["side"] != "Square" || sub["shapeType"] != "" {
		t.Errorf("subtypes = %v; want radius from circle (x-ms-discriminator-value), side from Square (definition name)", sub)
	}
	// A subtype used directly has only its own and its parent's properties.
	ps, err = l.Properties(def(t, l, "widgets.json", "Circle"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"radius", "shapeType", "unit"}, names(ps)); diff != "" {
		t.Errorf("Circle (-want +got):\n%s", diff)
	}
	for _, p := range ps {
		if p.Name == "radius" && !p.Required {
			t.Error("used directly, circle requires radius")
		}
	}
}

func TestErrorsNameFileAndPointer(t *testing.T) {
	cases := map[string]struct {
		reason string
		file   string
		def    string // when set, the error comes from Properties of this definition
		want   []string
	}{
		"MalformedJSON": {
			reason: "a syntax error names the file, line and column",
			file:   "malformed.json",
			want:   []string{"malformed.json#: invalid JSON at line 6, column"},
		},
		"NotSwagger2": {
			reason: "OpenAPI 3 is refused with the pointer to the version",
			file:   "openapi3.json",
			want:   []string{"openapi3.json#/swagger", `swagger version ""`},
		},
		"MissingFile": {
			reason: "a $ref to a file that does not exist names the referring file",
			file:   "missingfile.json",
			want:   []string{"missingfile.json#: references ./nowhere.json", "nowhere.json#: file not found"},
		},
		"DanglingDefinition": {
			reason: "a $ref to a missing definition names file and pointer of the $ref",
			file:   "dangling.json",
			def:    "A",
			want:   []string{"dangling.json#/definitions/A/properties/b", `dangling $ref "#/definitions/Missing"`},
		},
		"RefCycle": {
			reason: "a $ref that points at itself through another is reported, not followed forever",
			file:   "other.json",
			def:    "Loop1",
			want:   []string{"too many chained $refs"},
		},
		"AllOfCycle": {
			reason: "a schema that is its own allOf ancestor is reported",
			file:   "other.json",
			def:    "SelfParent",
			want:   []string{"other.json#/definitions/SelfParent", "allOf cycle"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l := New("testdata")
			d, err := l.Load(tc.file)
			if tc.def != "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				s := d.Swagger.Definitions[tc.def]
				_, err = l.Properties(Schema{Schema: &s, Origin: Origin{File: tc.file, Pointer: "/definitions/" + tc.def}})
			}
			if err == nil {
				t.Fatalf("%s: want an error", tc.reason)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s:\nerror %q\ndoes not contain %q", tc.reason, err, w)
				}
			}
		})
	}
}

func TestLookupPointers(t *testing.T) {
	l := New(contoso)
	d, err := l.Load("widgets.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		pointer string
		want    string
		err     bool
	}{
		"Definition":         {pointer: "/definitions/Widget", want: "widgets.json#/definitions/Widget"},
		"NestedProperty":     {pointer: "/definitions/WidgetProperties/properties/limits/properties/maxCount", want: "widgets.json#/definitions/WidgetProperties/properties/limits/properties/maxCount"},
		"ArrayItems":         {pointer: "/definitions/WidgetProperties/properties/parts/items", want: "widgets.json#/definitions/WidgetProperties/properties/parts/items"},
		"AllOfItem":          {pointer: "/definitions/Widget/allOf/0", want: "widgets.json#/definitions/Widget/allOf/0"},
		"MapValues":          {pointer: "/definitions/WidgetProperties/properties/labels/additionalProperties", want: "widgets.json#/definitions/WidgetProperties/properties/labels/additionalProperties"},
		"MissingDefinition":  {pointer: "/definitions/Nope", err: true},
		"AllOfOutOfRange":    {pointer: "/definitions/Widget/allOf/7", err: true},
		"UnsupportedSection": {pointer: "/paths/x", err: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := lookupSchema(d, tc.pointer)
			if tc.err {
				if err == nil {
					t.Fatalf("want an error for %s", tc.pointer)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Origin.String(); got != tc.want {
				t.Errorf("origin = %s, want %s", got, tc.want)
			}
		})
	}
}

// FuzzLoad feeds arbitrary bytes to the loader as a swagger file and walks
// every definition: it must return errors, never panic.
func FuzzLoad(f *testing.F) {
	for _, p := range []string{"testdata/malformed.json", "testdata/dangling.json", "testdata/other.json", contoso + "/widgets.json", contoso + "/common.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "fuzz.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		l := New(dir)
		d, err := l.Load("fuzz.json")
		if err != nil {
			return
		}
		for _, name := range SortedKeys(d.Swagger.Definitions) {
			s := d.Swagger.Definitions[name]
			ps, err := l.Properties(Schema{Schema: &s, Origin: Origin{File: d.Path, Pointer: "/definitions/" + name}, Name: name})
			if err != nil {
				continue
			}
			for _, p := range ps {
				_, _ = l.Properties(p.Schema)
			}
		}
	})
}

func TestRefToWholeFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A $ref without #fragment names a file that is a JSON schema itself.
	write("rp/workspaces.json", `{"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {},
	  "definitions": {"Workspace": {"type": "object", "properties": {"identity": {"$ref": "../common/identity.json"}}}}}`)
	write("common/identity.json", `{"type": "object", "properties": {"principalId": {"type": "string", "readOnly": true}, "type": {"type": "string"}}}`)
	l := New(dir)
	ps, err := l.Properties(def(t, l, "rp/workspaces.json", "Workspace"))
	if err != nil {
		t.Fatal(err)
	}
	id, err := l.Deref(ps[0].Schema)
	if err != nil {
		t.Fatalf("a $ref to a whole file must resolve: %v", err)
	}
	inner, err := l.Properties(id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"principalId", "type"}, names(inner)); diff != "" {
		t.Errorf("properties of the file's schema (-want +got):\n%s", diff)
	}
	if id.Origin.File != "common/identity.json" {
		t.Errorf("origin = %s", id.Origin)
	}
}

func TestPropertiesDiscriminatorUnionTakesGrandchildren(t *testing.T) {
	dir := t.TempDir()
	doc := `{"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {}, "definitions": {
	  "Source": {"type": "object", "discriminator": "type", "required": ["type"], "properties": {"type": {"type": "string"}}},
	  "Uploaded": {"type": "object", "allOf": [{"$ref": "#/definitions/Source"}], "properties": {"relativePath": {"type": "string"}}},
	  "UploadedSource": {"type": "object", "x-ms-discriminator-value": "Source", "allOf": [{"$ref": "#/definitions/Uploaded"}], "properties": {"artifactSelector": {"type": "string"}}}}}`
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	l := New(dir)
	ps, err := l.Properties(def(t, l, "a.json", "Source"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"artifactSelector", "relativePath", "type"}, names(ps)); diff != "" {
		t.Errorf("a grandchild subtype's properties belong to the union (-want +got):\n%s", diff)
	}
}

func TestReadAPIVersion(t *testing.T) {
	root := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.json", `{"swagger": "2.0", "info": {"title": "a", "version": "2024-01-01"}, "paths": {}}`)
	write("late.json", `{"swagger": "2.0", "paths": {"/x": {"get": {}}}, "info": {"version": "2019-01-01"}}`)
	write("none.json", `{"swagger": "2.0", "paths": {}}`)
	write("bad.json", `{"swagger": "2.0", "info": {"version": 7}}`)
	for _, c := range []struct{ file, want, err string }{
		{"a.json", "2024-01-01", ""},
		{"late.json", "2019-01-01", ""},
		{"none.json", "", ""},
		{"bad.json", "", "bad.json#/info"},
		{"gone.json", "", "gone.json"},
	} {
		got, err := ReadAPIVersion(root, c.file)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ReadAPIVersion(%s) = %q, %v; want %q, error containing %q", c.file, got, err, c.want, c.err)
		}
	}
	// The same answer as the loaded document's.
	l := New(root)
	d, err := l.Load("a.json")
	if err != nil {
		t.Fatal(err)
	}
	if d.APIVersion() != "2024-01-01" {
		t.Errorf("Document.APIVersion = %q", d.APIVersion())
	}
}
