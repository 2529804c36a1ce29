package configurator

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEqual(t *testing.T) {
	shared := map[string]any{"a": 1}
	same := Selected{"m": shared}
	g1 := NewResource(group("a", true))
	g1.Object.SetResourceVersion("7")
	g1.Object.SetUID("u1")
	g1Again := NewResource(g1.Object.DeepCopy())
	g1Churn := NewResource(g1.Object.DeepCopy())
	g1Churn.Object.SetResourceVersion("8")
	g1Churn.Object.SetManagedFields(nil)
	g2 := NewResource(group("a", false))
	g2.Object.SetResourceVersion("9")
	g2.Object.SetUID("u1")
	type pt struct{ X int }
	cases := map[string]struct {
		reason string
		a, b   Selected
		want   bool
	}{
		"SameMap":           {"the same map is equal without looking inside", same, same, true},
		"BothEmpty":         {"nil and empty have no keys", nil, Selected{}, true},
		"KeyCount":          {"different key counts differ", Selected{"a": 1}, Selected{"a": 1, "b": 2}, false},
		"OtherKey":          {"a key missing in the other differs", Selected{"a": 1}, Selected{"b": 1}, false},
		"ScalarEqual":       {"scalars compare with ==", Selected{"s": "x", "n": 1, "b": true}, Selected{"s": "x", "n": 1, "b": true}, true},
		"ScalarDiffers":     {"scalars compare with ==", Selected{"s": "x"}, Selected{"s": "y"}, false},
		"NumberTypes":       {"int 1 and float64 1 are different values", Selected{"n": 1}, Selected{"n": 1.0}, false},
		"RebuiltMap":        {"Select rebuilds maps: equal content is equal", Selected{"m": map[string]any{"a": 1}}, Selected{"m": map[string]any{"a": 1}}, true},
		"RebuiltMapChanged": {"a nested change is a change of the key", Selected{"m": map[string]any{"a": 1}}, Selected{"m": map[string]any{"a": 2}}, false},
		"RebuiltSlice":      {"slices compare by content", Selected{"l": []string{"a"}}, Selected{"l": []string{"a"}}, true},
		"PointerContent":    {"pointers to equal structs are equal", Selected{"p": &pt{1}}, Selected{"p": &pt{1}}, true},
		"NilValues":         {"nil equals nil", Selected{"x": nil}, Selected{"x": nil}, true},
		"NilVsValue":        {"nil differs from a value", Selected{"x": nil}, Selected{"x": 0}, false},
		"ResourceSameRV":    {"the same version of the same object", Selected{"g": g1}, Selected{"g": g1Again}, true},
		"ResourceChurn":     {"a new resourceVersion with the same visible content", Selected{"g": g1}, Selected{"g": g1Churn}, true},
		"ResourceChanged":   {"a new version with a different status", Selected{"g": g1}, Selected{"g": g2}, false},
		"ResourceVsNil":     {"a deleted resource differs", Selected{"g": g1}, Selected{"g": (*Resource)(nil)}, false},
		"Unstructured":      {"unstructured objects follow the Resource rule", Selected{"u": g1.Object}, Selected{"u": g1Churn.Object}, true},
		"TypesDiffer":       {"a *Resource is not its *Unstructured", Selected{"g": g1}, Selected{"g": g1.Object}, false},
		"FuncsDiffer":       {"functions are never equal (DeepEqual)", Selected{"f": func() {}}, Selected{"f": func() {}}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Equal(tc.a, tc.b)); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want, Equal(tc.b, tc.a)); diff != "" {
				t.Errorf("%s (swapped)\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func ExampleEqual() {
	before := Selected{"location": "westeurope", "tags": map[string]any{"env": "dev"}}
	rebuilt := Selected{"location": "westeurope", "tags": map[string]any{"env": "dev"}}
	moved := Selected{"location": "northeurope", "tags": map[string]any{"env": "dev"}}
	fmt.Println(Equal(before, rebuilt), Equal(before, moved))
	// Output: true false
}
