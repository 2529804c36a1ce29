package descriptor

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ProblemKind says what is wrong with a value of an action body.
type ProblemKind string

// The kinds of problems Validate finds.
const (
	// ProblemRequired is a required value that is missing.
	ProblemRequired ProblemKind = "required"
	// ProblemUnknown is a member the schema does not list.
	ProblemUnknown ProblemKind = "unknown"
	// ProblemType is a value of the wrong JSON type or format.
	ProblemType ProblemKind = "type"
	// ProblemUnsupported is a value outside a closed enum.
	ProblemUnsupported ProblemKind = "unsupported"
	// ProblemReadOnly is a value the service sets, sent in a request.
	ProblemReadOnly ProblemKind = "readOnly"
)

// Problem is a value of a request that does not fit its schema.
type Problem struct {
	// Path is the concrete path of the value, e.g.
	// blobRanges[0].startRange; empty for the body itself.
	Path Path
	Kind ProblemKind
	// Value is the value found (nil when it is missing).
	Value any
	// Type is the expected JSON type (and format), for ProblemType.
	Type string
	// Supported are the allowed values, for ProblemUnsupported.
	Supported []string
}

// String is the problem as one line: `keyName: required`.
func (p Problem) String() string {
	where := p.Path.String()
	if where == "" {
		where = "(body)"
	}
	switch p.Kind {
	case ProblemRequired:
		return where + ": required"
	case ProblemUnknown:
		return where + ": not a member of the schema"
	case ProblemType:
		return fmt.Sprintf("%s: must be of type %s", where, p.Type)
	case ProblemUnsupported:
		return fmt.Sprintf("%s: unsupported value %v: supported values: %s", where, p.Value, strings.Join(p.Supported, ", "))
	case ProblemReadOnly:
		return where + ": read-only, set by Azure"
	}
	return where + ": " + string(p.Kind)
}

// Validate checks a request body (decoded JSON: maps, slices, strings,
// bools, float64, int64 or json.Number; nil when there is no body)
// against the body's field table and returns the problems in path order.
// A nil Body accepts only no body. A null member counts as left out.
func (b *Body) Validate(v any) []Problem {
	var out []Problem
	if b == nil {
		if v != nil {
			out = append(out, Problem{Kind: ProblemUnknown, Value: v})
		}
		return out
	}
	if v == nil {
		if b.Required {
			out = append(out, Problem{Kind: ProblemRequired})
		}
		return out
	}
	b.check(&out, nil, nil, b.Root(), v)
	return out
}

func (b *Body) check(out *[]Problem, path, table Path, f Field, v any) {
	if v == nil {
		return
	}
	switch f.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			*out = append(*out, Problem{Path: path, Kind: ProblemType, Value: v, Type: "object"})
			return
		}
		if !f.Open {
			b.members(out, path, table, m)
		}
		return
	case "array":
		a, ok := v.([]any)
		if !ok {
			*out = append(*out, Problem{Path: path, Kind: ProblemType, Value: v, Type: "array"})
			return
		}
		item, ok := b.Field(table.Item())
		if !ok || f.Open {
			return
		}
		for i, x := range a {
			b.check(out, path.Index(i), table.Item(), item, x)
		}
		return
	}
	if !scalarFits(f, v) {
		t := f.Type
		if f.Format == "date-time" {
			t += " (RFC 3339 date-time)"
		}
		*out = append(*out, Problem{Path: path, Kind: ProblemType, Value: v, Type: t})
		return
	}
	if len(f.Enum) > 0 && !f.EnumOpen {
		s := scalarString(v)
		for _, e := range f.Enum {
			if e == s {
				return
			}
		}
		*out = append(*out, Problem{Path: path, Kind: ProblemUnsupported, Value: v, Supported: f.Enum})
	}
}

// members checks the members of an object and its required members.
func (b *Body) members(out *[]Problem, path, table Path, m map[string]any) {
	children := b.Children(table)
	mapValue, isMap := children[Values]
	keys := slices.Collect(maps.Keys(m))
	for name, c := range children {
		if _, ok := m[name]; !ok && c.Required && name != Values {
			keys = append(keys, name)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := path.Child(k)
		v, present := m[k]
		c, known := children[k]
		ct := table.Child(k)
		if !known && isMap {
			c, known, ct = mapValue, true, table.Value()
		}
		switch {
		case !present:
			*out = append(*out, Problem{Path: p, Kind: ProblemRequired})
		case !known:
			*out = append(*out, Problem{Path: p, Kind: ProblemUnknown, Value: v})
		case c.ReadOnly && v != nil:
			*out = append(*out, Problem{Path: p, Kind: ProblemReadOnly, Value: v})
		case c.Required && v == nil:
			*out = append(*out, Problem{Path: p, Kind: ProblemRequired})
		default:
			b.check(out, p, ct, c, v)
		}
	}
}

// ValidateQuery checks query parameters against an action's Query fields:
// unknown names, missing required ones, values that do not parse as their
// type, and values outside a closed enum.
func ValidateQuery(fields []Field, q map[string]string) []Problem {
	var out []Problem
	known := map[string]Field{}
	for _, f := range fields {
		known[f.Name()] = f
		if _, ok := q[f.Name()]; !ok && f.Required {
			out = append(out, Problem{Path: P(f.Name()), Kind: ProblemRequired})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(q)) {
		f, ok := known[k]
		if !ok {
			out = append(out, Problem{Path: P(k), Kind: ProblemUnknown, Value: q[k]})
			continue
		}
		var v any = q[k]
		switch f.Type {
		case "integer", "number":
			n, err := strconv.ParseFloat(q[k], 64)
			if err != nil || (f.Type == "integer" && n != math.Trunc(n)) {
				out = append(out, Problem{Path: P(k), Kind: ProblemType, Value: q[k], Type: f.Type})
				continue
			}
			v = json.Number(q[k])
		case "boolean":
			t, err := strconv.ParseBool(q[k])
			if err != nil {
				out = append(out, Problem{Path: P(k), Kind: ProblemType, Value: q[k], Type: f.Type})
				continue
			}
			v = t
		}
		var sub []Problem
		(&Body{}).check(&sub, P(k), P(k), f, v)
		out = append(out, sub...)
	}
	slices.SortStableFunc(out, func(a, b Problem) int { return a.Path.Compare(b.Path) })
	return out
}

// scalarFits reports whether a scalar value has the field's type.
func scalarFits(f Field, v any) bool {
	switch f.Type {
	case "string":
		s, ok := v.(string)
		if ok && f.Format == "date-time" {
			_, err := time.Parse(time.RFC3339Nano, s)
			return err == nil
		}
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		n, ok := number(v)
		return ok && n == math.Trunc(n)
	case "number":
		_, ok := number(v)
		return ok
	}
	return true
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func scalarString(v any) string {
	if n, ok := number(v); ok {
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
