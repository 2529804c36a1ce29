package descriptor

import (
	"maps"
	"slices"
)

// RequiredMissing returns the concrete paths (indexes for array items, keys
// for map values) of the required properties a body leaves out or sets to
// null, where their holder is present: a required property of an absent
// optional object is not missing. Sorted, each once.
//
// The CRD does not require these properties, since a reference or
// spec.valuesFrom may supply them: admission runs this on the spec with
// what is supplied filled in, the reconciler on the resolved body before
// anything is sent.
func (d *Descriptor) RequiredMissing(body map[string]any) []Path {
	var out []Path
	for _, p := range d.Properties {
		if !p.Required || len(p.Path) == 0 {
			continue
		}
		name := p.Path.Last()
		Holders(p.Path.Parent(), body, func(at Path, m map[string]any) {
			if v, ok := m[name]; !ok || v == nil {
				out = append(out, at.Child(name))
			}
		})
	}
	slices.SortFunc(out, Path.Compare)
	return slices.CompactFunc(out, Path.Equal)
}

// Holders calls f with every object a table path (Items, Values) reaches
// in decoded JSON v, and its concrete path (indexes, map keys in order).
func Holders(table Path, v any, f func(at Path, m map[string]any)) {
	holders(table, nil, v, f)
}

func holders(table, at Path, v any, f func(Path, map[string]any)) {
	if len(table) == 0 {
		if m, ok := v.(map[string]any); ok {
			f(at, m)
		}
		return
	}
	switch seg := table[0]; seg {
	case Items:
		list, _ := v.([]any)
		for i, item := range list {
			holders(table[1:], at.Index(i), item, f)
		}
	case Values:
		m, _ := v.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			holders(table[1:], at.Child(k), m[k], f)
		}
	default:
		m, _ := v.(map[string]any)
		if next, ok := m[seg]; ok {
			holders(table[1:], at.Child(seg), next, f)
		}
	}
}
