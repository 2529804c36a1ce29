package descriptor

import (
	"sort"
	"strings"
)

// Node is one value of an ARM body met by Walk.
type Node struct {
	// Path is the concrete path, e.g. properties.ipRules[0].value.
	Path string
	// TablePath is the path in the property table, e.g.
	// properties.ipRules[*].value; for an unknown property it is the path
	// the table would use.
	TablePath string
	// Known is true when TablePath is in the table.
	Known bool
	// Class is the class of TablePath when Known.
	Class Class
	// Parent and Key locate the value: Parent[Key].
	Parent map[string]any
	Key    string
}

// Open reports whether a table path allows any content below it: a path in
// the table that has no entries below it (a free-form object, a map of
// scalars, or a scalar).
func (d *Descriptor) Open(tablePath string) bool {
	i := sort.Search(len(d.Properties), func(i int) bool { return d.Properties[i].Path > tablePath })
	for ; i < len(d.Properties); i++ {
		p := d.Properties[i].Path
		if !strings.HasPrefix(p, tablePath) {
			return true
		}
		if rest := p[len(tablePath):]; strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "[") {
			return false
		}
	}
	return true
}

func (d *Descriptor) hasBelow(prefix string) bool {
	i := sort.Search(len(d.Properties), func(i int) bool { return d.Properties[i].Path >= prefix })
	return i < len(d.Properties) && strings.HasPrefix(d.Properties[i].Path, prefix)
}

// Walk visits the object-valued members of an ARM body (spec or request
// body) depth first, in key order, mapping each to its table path: array
// items become `[*]`, keys of a map whose values are described become `*`.
// fn returns false to skip what is below a node. Members below a known open
// node are not visited.
func (d *Descriptor) Walk(body map[string]any, fn func(Node) bool) {
	d.walk(body, "", "", fn)
}

func (d *Descriptor) walk(obj map[string]any, path, table string, fn func(Node) bool) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := join(path, k)
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
					d.walk(m, p+"["+itoa(i)+"]", tp+"[*]", fn)
				}
			}
		}
	}
}

// Child maps the member key of the value at table path table to its table
// path, class and whether the table knows it. Keys of a map whose values are
// described map to `table.*`, which has the class of the map.
func (d *Descriptor) Child(table, key string) (string, Class, bool) {
	tp := join(table, key)
	if _, known := d.ClassOf(tp); !known && table != "" && d.hasBelow(table+".*") {
		tp = table + ".*"
	}
	c, known := d.ClassOf(tp)
	if !known && strings.HasSuffix(tp, ".*") {
		c, known = d.ClassOf(table)
	}
	return tp, c, known
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	return string(b[n:])
}
