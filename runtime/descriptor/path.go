package descriptor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Path is a property path from the root of an ARM body, as a list of
// segments: a property name, Items (every item of an array), Values (every
// value of a map) or, in a concrete path, an index such as "[3]". A property
// name is a segment as it is, dots and all: `odata.type` is one segment.
//
// The property names "*" and "[*]" and names of the form "[<digits>]" would
// read as the wildcards and indexes; the generator reports a property so
// named as unsupported instead of emitting it.
type Path []string

// The segments of a Path that are not property names.
const (
	// Items stands for every item of an array.
	Items = "[*]"
	// Values stands for every value of a map (additionalProperties).
	Values = "*"
)

// P builds a Path of property names and wildcards.
func P(segments ...string) Path { return Path(segments) }

// Child returns a new path: p followed by the property name key.
func (p Path) Child(key string) Path { return p.with(key) }

// Item returns a new path: the items of the array at p.
func (p Path) Item() Path { return p.with(Items) }

// Value returns a new path: the values of the map at p.
func (p Path) Value() Path { return p.with(Values) }

// Index returns a new path: item i of the array at p (a concrete path).
func (p Path) Index(i int) Path { return p.with("[" + strconv.Itoa(i) + "]") }

func (p Path) with(seg string) Path {
	out := make(Path, len(p)+1)
	copy(out, p)
	out[len(p)] = seg
	return out
}

// Parent returns the path without its last segment (nil at the root).
func (p Path) Parent() Path {
	if len(p) == 0 {
		return nil
	}
	return p[: len(p)-1 : len(p)-1]
}

// Holder returns the path of the property whose value holds the property
// at p, passing over array items and map values: `a.b[*].c` → `a.b`,
// `a.*.c` → `a`, `a` → the root (nil).
func (p Path) Holder() Path {
	p = p.trimWildcards()
	if len(p) == 0 {
		return nil
	}
	return p.Parent().trimWildcards()
}

func (p Path) trimWildcards() Path {
	for len(p) > 0 && isWildcard(p.Last()) {
		p = p.Parent()
	}
	return p
}

// Last returns the last segment ("" at the root).
func (p Path) Last() string {
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1]
}

// Table returns the table form of a concrete path: indexes become Items.
func (p Path) Table() Path {
	out := make(Path, len(p))
	for i, s := range p {
		if isIndex(s) {
			s = Items
		}
		out[i] = s
	}
	return out
}

// Equal reports whether two paths have the same segments.
func (p Path) Equal(q Path) bool { return slices.Equal(p, q) }

// Compare orders paths segment by segment; a parent sorts before its
// children.
func (p Path) Compare(q Path) int { return slices.Compare(p, q) }

// HasPrefix reports whether q is p or an ancestor of p.
func (p Path) HasPrefix(q Path) bool {
	return len(q) <= len(p) && slices.Equal(p[:len(q)], q)
}

// Under reports whether p is strictly below q.
func (p Path) Under(q Path) bool { return len(p) > len(q) && p.HasPrefix(q) }

// Names returns the property names of p: the path without wildcards and
// indexes.
func (p Path) Names() []string {
	var out []string
	for _, s := range p {
		if !isWildcard(s) {
			out = append(out, s)
		}
	}
	return out
}

// String is the path's text form, the one specs/armature.yaml, `armature
// inspect` and messages use: property names joined by dots, `[*]` and
// `[3]` appended to the array they follow, and Values as `*`. A dot,
// bracket, backslash or star inside a property name is escaped with a
// backslash (`properties.odata\.type`), so ParsePath reads every String
// back.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s == Items || isIndex(s):
			b.WriteString(s)
			continue
		case i > 0:
			b.WriteByte('.')
		}
		if s == Values {
			b.WriteString(s)
			continue
		}
		for j := 0; j < len(s); j++ {
			if strings.IndexByte(`.[]\*`, s[j]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(s[j])
		}
	}
	return b.String()
}

// ParsePath reads the text form of a path (see String).
func ParsePath(s string) (Path, error) {
	var out Path
	var cur strings.Builder
	named := false // cur holds a property name (it may be empty: `\.`)
	wild := false  // the last segment read is a wildcard or an index
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 == len(s) {
				return nil, fmt.Errorf("path %q: ends with a backslash", s)
			}
			i++
			cur.WriteByte(s[i])
			named = true
		case '.':
			switch {
			case named:
				out = append(out, cur.String())
				cur.Reset()
				named = false
			case !wild:
				return nil, fmt.Errorf("path %q: empty property name at offset %d", s, i)
			}
			wild = false
			if i+1 == len(s) {
				return nil, fmt.Errorf("path %q: ends with a dot", s)
			}
		case '[':
			if named {
				out = append(out, cur.String())
				cur.Reset()
				named = false
			}
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: [ without ]", s)
			}
			seg := s[i : i+end+1]
			if seg != Items && !isIndex(seg) {
				return nil, fmt.Errorf("path %q: %s is neither [*] nor an index", s, seg)
			}
			if len(out) == 0 {
				return nil, fmt.Errorf("path %q: %s follows no property", s, seg)
			}
			out = append(out, seg)
			wild = true
			i += end
		case '*':
			if named || wild || len(out) == 0 {
				return nil, fmt.Errorf("path %q: * is a map's values only after a dot; in a property name escape it (\\*)", s)
			}
			out = append(out, Values)
			wild = true
		default:
			if wild {
				return nil, fmt.Errorf("path %q: a dot must follow %s", s, out[len(out)-1])
			}
			cur.WriteByte(c)
			named = true
		}
	}
	if named {
		out = append(out, cur.String())
	}
	return out, nil
}

// MustParsePath is ParsePath for paths known to be well formed (tests,
// literals); it panics on an error.
func MustParsePath(s string) Path {
	p, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

// FieldPath returns the path as a Kubernetes field path below root, as
// field errors show it: spec.properties.ipRules[0].value, and a map key or
// a property name with a dot in brackets: spec.properties["odata.type"].
func (p Path) FieldPath(root *field.Path) *field.Path {
	f := root
	for _, s := range p {
		switch {
		case s == Items:
			f = f.Key("*")
		case isIndex(s):
			i, _ := strconv.Atoi(s[1 : len(s)-1])
			f = f.Index(i)
		default:
			f = FieldChild(f, s)
		}
	}
	return f
}

// FieldChild returns the field path of the property name below f: a child,
// or a key in brackets when the name has a dot or a bracket, so that the
// path reads back unambiguously (spec.properties["odata.type"]).
func FieldChild(f *field.Path, name string) *field.Path {
	if strings.ContainsAny(name, ".[]") {
		return f.Key(name)
	}
	return f.Child(name)
}

// Get reads the value at p, a path of property names, from decoded JSON.
func (p Path) Get(v any) (any, bool) {
	for _, k := range p {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// Set sets the value at p, a non-empty path of property names, in decoded
// JSON, making objects on the way (replacing what is not one), and returns
// the root: root itself when it is an object, else a new one.
func (p Path) Set(root any, val any) map[string]any {
	m, ok := root.(map[string]any)
	if !ok {
		m = map[string]any{}
	}
	cur := m
	for _, k := range p[:len(p)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[p.Last()] = val
	return m
}

// IsWildcard reports whether a segment is Items, Values or an index.
func IsWildcard(seg string) bool { return isWildcard(seg) }

func isWildcard(s string) bool { return s == Items || s == Values || isIndex(s) }

func isIndex(s string) bool {
	if len(s) < 3 || s[0] != '[' || s[len(s)-1] != ']' {
		return false
	}
	for _, c := range s[1 : len(s)-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
