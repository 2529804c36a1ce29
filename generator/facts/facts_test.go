package facts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/armature-dev/armature/runtime/descriptor"
)

const sample = `{
  "source": "hashicorp/terraform-provider-azurerm", "commit": "abc",
  "resources": [
    {"resource": "azurerm_linux_web_app", "armType": "Microsoft.Web/sites", "file": "linux.go",
     "facts": [
       {"attribute": "location", "path": "location", "fact": "forceNew", "line": 10},
       {"attribute": "tags", "path": "tags", "fact": "updatable", "line": 11},
       {"attribute": "site_config.x", "path": "properties.siteConfig.x", "fact": "forceNew", "line": 12},
       {"attribute": "zone", "path": "properties.zone", "fact": "conditionalForceNew", "line": 13, "condition": "ForceNewIfChange"}
     ]},
    {"resource": "azurerm_windows_web_app", "armType": "microsoft.web/SITES", "file": "windows.go",
     "facts": [
       {"attribute": "location", "path": "location", "fact": "forceNew", "line": 20},
       {"attribute": "site_config.x", "path": "properties.siteConfig.X", "fact": "updatable", "line": 21}
     ]}
  ]
}`

func load(t *testing.T, body string) (*Table, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "facts.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

func TestLookup(t *testing.T) {
	tb, err := load(t, sample)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want Verdict
		n    int
	}{
		{"location", CreateOnly, 2},
		{"tags", InPlace, 1},
		{"properties.siteConfig.x", Conflict, 2},
		{"properties.zone", Conditional, 1},
		{"properties.other", None, 0},
	}
	for _, c := range cases {
		a := tb.Lookup("Microsoft.Web/sites", descriptor.MustParsePath(c.path))
		if a.Verdict != c.want || len(a.Evidence) != c.n {
			t.Errorf("%s: %v with %d facts, want %v with %d", c.path, a.Verdict, len(a.Evidence), c.want, c.n)
		}
	}
	a := tb.Lookup("Microsoft.Web/sites", descriptor.MustParsePath("location"))
	if got := a.Cite(); !strings.Contains(got, "azurerm_linux_web_app.location ForceNew (linux.go:10)") {
		t.Errorf("cite: %s", got)
	}
	if len(tb.UpdatedBelow("Microsoft.Web/sites", descriptor.MustParsePath("properties.siteConfig"))) != 1 {
		t.Error("siteConfig.x is updated in place by the Windows app: siteConfig is updated below")
	}
	if len(tb.UpdatedBelow("Microsoft.Web/sites", descriptor.MustParsePath("properties.zone"))) != 0 {
		t.Error("properties.zone has no in-place fact")
	}
	if len(tb.UpdatedBelow("Microsoft.Web/sites", descriptor.MustParsePath("properties.site"))) != 0 {
		t.Error("properties.site is a prefix of properties.siteConfig by text, not by path")
	}
	var nilTable *Table
	if nilTable.Lookup("x", descriptor.P("a")).Verdict != None {
		t.Error("a nil table answers None")
	}
}

func TestLoadErrors(t *testing.T) {
	for name, body := range map[string]string{
		"unknown fact": `{"resources": [{"resource": "r", "armType": "A/b", "facts": [{"attribute": "a", "path": "x", "fact": "maybe"}]}]}`,
		"empty path":   `{"resources": [{"resource": "r", "armType": "A/b", "facts": [{"attribute": "a", "path": "", "fact": "forceNew"}]}]}`,
		"not json":     `{`,
	} {
		if _, err := load(t, body); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func TestCompare(t *testing.T) {
	tb, err := load(t, sample)
	if err != nil {
		t.Fatal(err)
	}
	got := tb.Compare(map[string]map[string]string{
		"Microsoft.Web/sites": {
			"location":                "writable",   // Azure cannot update it: missed
			"tags":                    "createOnly", // Azure updates it: false createOnly
			"properties.siteConfig.x": "createOnly", // conflict: not judged
			"properties.zone":         "writable",   // conditional: not judged
		},
	})
	if len(got) != 1 {
		t.Fatalf("%d providers, want 1", len(got))
	}
	a := got[0]
	if a.Provider != "Microsoft.Web" || a.Judged != 2 || a.Agree != 0 || a.FalseCreateOnly != 1 || a.Missed != 1 || len(a.Disagreements) != 2 {
		t.Errorf("%+v", a)
	}
	got = tb.Compare(map[string]map[string]string{"Microsoft.Web/sites": {"location": "createOnly", "tags": "writeOnly"}})
	if a := got[0]; a.Judged != 2 || a.Agree != 2 {
		t.Errorf("%+v", a)
	}
}
