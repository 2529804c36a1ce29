package conversion

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// AnnotationPreserved holds, as JSON, the properties the object's current
// version does not have, kept for the versions that do.
const AnnotationPreserved = "armature.dev/conversion-preserved"

// Preserved is one kept property: where it was (spec or status, and the
// path of keys and array indices below) and its value.
type Preserved struct {
	In    string `json:"in"`
	Path  []any  `json:"path"`
	Value any    `json:"value"`
}

// Converter converts between the versions of the generated kinds.
type Converter struct {
	byGVK map[schema.GroupVersionKind]*descriptor.Descriptor
}

// New returns a converter for the kinds of descs.
func New(descs []*descriptor.Descriptor) *Converter {
	c := &Converter{byGVK: map[schema.GroupVersionKind]*descriptor.Descriptor{}}
	for _, d := range descs {
		c.byGVK[d.GroupVersionKind()] = d
	}
	return c
}

// Convert returns obj at the version toVersion of its group. obj is not
// changed.
func (c *Converter) Convert(obj *unstructured.Unstructured, toVersion string) (*unstructured.Unstructured, error) {
	gvk := obj.GroupVersionKind()
	from, ok := c.byGVK[gvk]
	if !ok {
		return nil, fmt.Errorf("conversion: %s is not a generated kind", gvk)
	}
	to, ok := c.byGVK[gvk.GroupKind().WithVersion(toVersion)]
	if !ok {
		return nil, fmt.Errorf("conversion: %s %s is not served in version %s", gvk.Group, gvk.Kind, toVersion)
	}
	out := obj.DeepCopy()
	out.SetAPIVersion(schema.GroupVersion{Group: gvk.Group, Version: toVersion}.String())
	if from == to {
		return out, nil
	}
	kept, err := preserved(out)
	if err != nil {
		return nil, err
	}
	// Put back what the target version has.
	var still []Preserved
	for _, p := range kept {
		if !restore(out.Object, to, p) {
			still = append(still, p)
		}
	}
	// Take out what it lacks.
	for _, in := range []string{"spec", "status"} {
		body, _ := out.Object[in].(map[string]any)
		if body == nil {
			continue
		}
		moveOut(body, from, to, in, nil, nil, &still)
	}
	return out, setPreserved(out, still)
}

// moveOut walks body with from's table and removes, into kept, every
// member from knows and to does not.
func moveOut(obj map[string]any, from, to *descriptor.Descriptor, in string, path []any, table descriptor.Path, kept *[]Preserved) {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		tp, _, known := from.Child(table, k)
		if !known {
			continue // an operator field, or one neither version describes
		}
		p := append(append([]any(nil), path...), k)
		if _, _, inTarget := to.Child(table, k); !inTarget || !tableOf(to, p).Equal(tp) {
			*kept = append(*kept, Preserved{In: in, Path: p, Value: obj[k]})
			delete(obj, k)
			continue
		}
		if from.Open(tp) {
			continue
		}
		switch v := obj[k].(type) {
		case map[string]any:
			moveOut(v, from, to, in, p, tp, kept)
		case []any:
			for i, item := range v {
				if m, ok := item.(map[string]any); ok {
					moveOut(m, from, to, in, append(append([]any(nil), p...), i), tp.Item(), kept)
				}
			}
		}
	}
}

// tableOf maps a concrete path (names and item indexes) to d's table path
// (nil when d does not know a step of it).
func tableOf(d *descriptor.Descriptor, path []any) descriptor.Path {
	var table descriptor.Path
	for _, s := range path {
		switch s := s.(type) {
		case string:
			tp, _, known := d.Child(table, s)
			if !known {
				return nil
			}
			table = tp
		default:
			table = table.Item()
		}
	}
	return table
}

// restore puts p back into obj when d knows its path and the containers
// above it exist (arrays are never grown); it reports whether p is done
// with (put back, or its place is gone).
func restore(obj map[string]any, d *descriptor.Descriptor, p Preserved) bool {
	if tableOf(d, p.Path) == nil {
		return false
	}
	cur, _ := obj[p.In].(map[string]any)
	if cur == nil {
		cur = map[string]any{}
		obj[p.In] = cur
	}
	var node any = cur
	for i, s := range p.Path {
		last := i == len(p.Path)-1
		switch s := s.(type) {
		case string:
			m, ok := node.(map[string]any)
			if !ok {
				return true
			}
			if last {
				if _, exists := m[s]; !exists {
					m[s] = p.Value
				}
				return true
			}
			next, exists := m[s]
			if !exists {
				next = map[string]any{}
				if _, isIndex := p.Path[i+1].(string); !isIndex {
					return true // an array item that no longer exists
				}
				m[s] = next
			}
			node = next
		default:
			idx := index(s)
			a, ok := node.([]any)
			if !ok || idx < 0 || idx >= len(a) {
				return true
			}
			if last {
				return true
			}
			node = a[idx]
		}
	}
	return true
}

func index(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		return int(n)
	}
	return -1
}

func preserved(obj *unstructured.Unstructured) ([]Preserved, error) {
	raw := obj.GetAnnotations()[AnnotationPreserved]
	if raw == "" {
		return nil, nil
	}
	var out []Preserved
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("conversion: annotation %s of %s/%s: %w", AnnotationPreserved, obj.GetNamespace(), obj.GetName(), err)
	}
	return out, nil
}

func setPreserved(obj *unstructured.Unstructured, kept []Preserved) error {
	ann := obj.GetAnnotations()
	if len(kept) == 0 {
		if _, ok := ann[AnnotationPreserved]; ok {
			delete(ann, AnnotationPreserved)
			if len(ann) == 0 {
				ann = nil
			}
			obj.SetAnnotations(ann)
		}
		return nil
	}
	raw, err := json.Marshal(kept)
	if err != nil {
		return err
	}
	if ann == nil {
		ann = map[string]string{}
	}
	ann[AnnotationPreserved] = string(raw)
	obj.SetAnnotations(ann)
	return nil
}
