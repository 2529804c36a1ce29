package descriptor

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestPathString(t *testing.T) {
	cases := map[string]struct {
		path Path
		want string
	}{
		"root":           {nil, ""},
		"names":          {P("properties", "accessTier"), "properties.accessTier"},
		"items":          {P("properties", "ipRules", Items, "value"), "properties.ipRules[*].value"},
		"nested items":   {P("a", Items, Items, "b"), "a[*][*].b"},
		"values":         {P("tags", Values), "tags.*"},
		"values below":   {P("a", Values, "b"), "a.*.b"},
		"index":          {P("a", "[3]", "b"), "a[3].b"},
		"dot in name":    {P("properties", "odata.type"), `properties.odata\.type`},
		"star in name":   {P("a", "*x"), `a.\*x`},
		"bracket a name": {P("a[b]"), `a\[b\]`},
		"backslash":      {P(`a\b`), `a\\b`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.path.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			back, err := ParsePath(tc.want)
			if err != nil {
				t.Fatalf("ParsePath(%q): %v", tc.want, err)
			}
			if diff := cmp.Diff(tc.path, back); diff != "" && !(len(tc.path) == 0 && len(back) == 0) {
				t.Errorf("ParsePath(String()) -want +got:\n%s", diff)
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	for _, s := range []string{".a", "a.", "a..b", "[*]", "a[x]", "a[", `a\`, "a*", "a.*b", "a[*]b", "*"} {
		if p, err := ParsePath(s); err == nil {
			t.Errorf("ParsePath(%q) = %q, want an error", s, p)
		}
	}
}

func TestPathRelations(t *testing.T) {
	p := P("properties", "ipRules", Items, "value")
	if !p.HasPrefix(P("properties", "ipRules")) || p.HasPrefix(P("properties", "ip")) {
		t.Errorf("HasPrefix is wrong for %s", p)
	}
	if !p.Under(P("properties")) || p.Under(p) {
		t.Errorf("Under is wrong for %s", p)
	}
	if got := p.Parent().String(); got != "properties.ipRules[*]" {
		t.Errorf("Parent() = %s", got)
	}
	if got := P("a", "[0]", "b").Table(); !got.Equal(P("a", Items, "b")) {
		t.Errorf("Table() = %s", got)
	}
	if got := p.Names(); !cmp.Equal(got, []string{"properties", "ipRules", "value"}) {
		t.Errorf("Names() = %v", got)
	}
	c := P("a").Child("b")
	d := c.Child("c")
	e := c.Child("d")
	if d.String() != "a.b.c" || e.String() != "a.b.d" {
		t.Errorf("Child shares memory: %s %s", d, e)
	}
	if P("a").Compare(P("a", "b")) >= 0 || P("a", "b").Compare(P("a.b")) >= 0 {
		t.Errorf("Compare: a parent sorts before its children, and by segment")
	}
}

func TestPathFieldPath(t *testing.T) {
	cases := map[string]struct {
		path Path
		want string
	}{
		"names": {P("properties", "accessTier"), "spec.properties.accessTier"},
		"index": {P("properties", "ipRules", "[2]", "value"), "spec.properties.ipRules[2].value"},
		"dot":   {P("properties", "odata.type"), "spec.properties[odata.type]"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.path.FieldPath(field.NewPath("spec")).String(); got != tc.want {
				t.Errorf("FieldPath = %q, want %q", got, tc.want)
			}
		})
	}
}
