package configurator

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookup(t *testing.T) {
	obj := map[string]any{
		"status": map[string]any{
			"properties": map[string]any{"primaryEndpoints": map[string]any{"blob": "https://a.blob/"}},
			"conditions": []any{
				map[string]any{"type": "Synced", "status": "True"},
				map[string]any{"type": "Ready", "status": "False"},
			},
			"count": int64(3),
		},
	}
	type want struct {
		v   any
		ok  bool
		err string
	}
	cases := map[string]struct {
		path string
		want want
	}{
		"Field":         {"status.properties.primaryEndpoints.blob", want{v: "https://a.blob/", ok: true}},
		"LeadingDot":    {".status.count", want{v: int64(3), ok: true}},
		"Dollar":        {"$.status.count", want{v: int64(3), ok: true}},
		"Index":         {"status.conditions[1].type", want{v: "Ready", ok: true}},
		"Selector":      {"status.conditions[type=Ready].status", want{v: "False", ok: true}},
		"QuotedValue":   {"status.conditions[type='Synced'].status", want{v: "True", ok: true}},
		"Missing":       {"status.properties.secondaryEndpoints", want{}},
		"IndexTooLarge": {"status.conditions[5]", want{}},
		"NoMatch":       {"status.conditions[type=Gone]", want{}},
		"NotAList":      {"status.count[0]", want{}},
		"Empty":         {"", want{err: `path "": empty`}},
		"Unclosed":      {"status.conditions[0", want{err: `path "status.conditions[0": unclosed [`}},
		"BadIndex":      {"status.conditions[x]", want{err: `path "status.conditions[x]": [x]: want an index or key=value`}},
		"DoubleDot":     {"status..count", want{err: `path "status..count": empty field name`}},
		"TrailingDot":   {"status.", want{err: `path "status.": trailing .`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v, ok, err := Lookup(obj, tc.path)
			got := want{v: v, ok: ok}
			if err != nil {
				got.err = err.Error()
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("Lookup(%q): -want +got:\n%s", tc.path, diff)
			}
		})
	}
}

func ExampleLookup() {
	obj := map[string]any{"status": map[string]any{"conditions": []any{
		map[string]any{"type": "Ready", "status": "True"},
	}}}
	v, ok, _ := Lookup(obj, "status.conditions[type=Ready].status")
	fmt.Println(v, ok)
	// Output: True true
}
