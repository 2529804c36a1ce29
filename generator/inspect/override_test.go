package inspect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/armature-dev/armature/generator"
)

func TestOverride(t *testing.T) {
	a, err := generator.Analyze(generator.Options{SpecRoot: "../testdata/contoso/input", Files: []string{"widgets.json"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		kind, path, class string
		want, err         string
	}{
		"CreateOnly": {kind: "widget", path: "spec.properties.color", class: "createOnly",
			want: "  - kind: Widget\n    path: properties.color\n    class: createOnly\n"},
		"IndexAsItems": {kind: "Widget", path: "properties.parts[3].children", class: "createOnly",
			want: "    path: properties.parts[*].children\n"},
		"SaysWhatItIsNow": {kind: "Widget", path: "location", class: "writable",
			want: "location: createOnly now (source arm: ARM-wide"},
		"AlreadyThat":  {kind: "Widget", path: "location", class: "createOnly", err: "Widget location is createOnly already (source arm"},
		"UnknownPath":  {kind: "Widget", path: "properties.nope", class: "createOnly", err: "Widget has no property properties.nope"},
		"UnknownKind":  {kind: "Gadget", path: "location", class: "createOnly", err: "no kind Gadget"},
		"UnknownClass": {kind: "Widget", path: "location", class: "frozen", err: `--class "frozen"`},
		"KindRequired": {path: "location", class: "createOnly", err: "--override needs --kind"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			err := Override(&b, a, tc.kind, tc.path, tc.class)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("missing %q in:\n%s", tc.want, b.String())
			}
		})
	}
}
