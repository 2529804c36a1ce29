package descriptor

import (
	"maps"
	"slices"
)

// Node is one value of an ARM body met by Walk.
type Node struct {
	// Path is the concrete path, e.g. properties.ipRules[0].value.
	Path Path
	// TablePath is the path in the property table, e.g.
	// properties.ipRules[*].value; for an unknown property it is the path
	// the table would use.
	TablePath Path
	// Known is true when TablePath is in the table.
	Known bool
	// Class is the class of TablePath when Known.
	Class Class
	// Parent and Key locate the value: Parent[Key].
	Parent map[string]any
	Key    string
}

// search returns the index of the first property whose path is not below
// cmp's answer, as slices.BinarySearchFunc does.
func (d *Descriptor) search(p Path) (int, bool) {
	return slices.BinarySearchFunc(d.Properties, p, func(e Property, q Path) int { return e.Path.Compare(q) })
}

// Open reports whether a table path allows any content below it: a path in
// the table that has no entries below it (a free-form object, a map of
// scalars, or a scalar).
func (d *Descriptor) Open(tablePath Path) bool {
	i, found := d.search(tablePath)
	if found {
		i++
	}
	return i >= len(d.Properties) || !d.Properties[i].Path.Under(tablePath)
}

// hasBelow reports whether the table has a path at or below prefix.
func (d *Descriptor) hasBelow(prefix Path) bool {
	i, _ := d.search(prefix)
	return i < len(d.Properties) && d.Properties[i].Path.HasPrefix(prefix)
}

// Walk visits the object-valued members of an ARM body (spec or request
// body) depth first, in key order, mapping each to its table path: array
// items become Items, keys of a map whose values are described become
// Values. fn returns false to skip what is below a node. Members below a
// known open node are not visited.
func (d *Descriptor) Walk(body map[string]any, fn func(Node) bool) {
	d.walk(body, nil, nil, fn)
}

func (d *Descriptor) walk(obj map[string]any, path, table Path, fn func(Node) bool) {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		p := path.Child(k)
		tp, c, known := d.Child(table, k)
		n := Node{Path: p, TablePath: tp, Known: known, Class: c, Parent: obj, Key: k}
		if !fn(n) || !known || d.Open(tp) {
			continue
		}
		switch v := obj[k].(type) {
		case map[string]any:
			d.walk(v, p, tp, fn)
		case []any:
			for i, item := range v {
				if m, ok := item.(map[string]any); ok {
					d.walk(m, p.Index(i), tp.Item(), fn)
				}
			}
		}
	}
}

// Child maps the member key of the value at table path table to its table
// path, class and whether the table knows it. Keys of a map whose values are
// described map to table+Values, which has the class of the map.
func (d *Descriptor) Child(table Path, key string) (Path, Class, bool) {
	tp := table.Child(key)
	if _, known := d.ClassOf(tp); !known && len(table) > 0 {
		if values := table.Value(); d.hasBelow(values) {
			tp = values
		}
	}
	c, known := d.ClassOf(tp)
	if !known && tp.Last() == Values {
		c, known = d.ClassOf(table)
	}
	return tp, c, known
}
