package actions

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/go-openapi/spec"

	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// maxDepth bounds the nesting of a flattened body: deeper values are Open.
// Action bodies of the corpus are at most 9 levels deep.
const maxDepth = 12

// Describe returns the descriptor of a POST action: name, path, LRO
// behaviour, query parameters, and the request and response bodies as
// field tables. Errors are located problems in the swagger; the action is
// still described, with an Open body where a schema could not be read.
func Describe(l *load.Loader, a *tree.Action) (descriptor.Action, []error) {
	op := a.Op
	out := descriptor.Action{Name: a.Name, Path: a.Path, LongRunning: op.LongRunning, FinalStateVia: op.FinalStateVia}
	var errs []error
	if op.Body != nil {
		b, e := flatten(l, *op.Body, false)
		b.Required = op.BodyRequired
		out.Request, errs = b, append(errs, e...)
	}
	if op.Response != nil {
		b, e := flatten(l, *op.Response, true)
		out.Response, errs = b, append(errs, e...)
	}
	sasQuery := false
	for _, q := range op.Query {
		sasQuery = sasQuery || strings.Contains(strings.ToLower(q.Name), "sas")
		mas, _ := load.ExtMap(q.Extensions, "x-ms-enum")["modelAsString"].(bool)
		f := descriptor.Field{Path: descriptor.P(q.Name), Type: q.Type, Format: q.Format, Required: q.Required, Enum: enumStrings(q.Enum), EnumOpen: mas}
		out.Query = append(out.Query, f)
	}
	if sasQuery && out.Response != nil {
		// The request asks for SAS URIs (retrieveBootDiagnosticsData's
		// sasUriExpirationTimeInMinutes): the URIs it returns carry a
		// signature, which is a credential.
		for i, f := range out.Response.Fields {
			if f.Type == "string" && strings.HasSuffix(strings.ToLower(lastName(f.Path)), "uri") {
				out.Response.Fields[i].Secret = true
			}
		}
	}
	return out, errs
}

// walker flattens one body.
type walker struct {
	l        *load.Loader
	response bool
	stack    []string // origins of the schemas being walked, to cut cycles
	fields   []descriptor.Field
	errs     []error
}

func flatten(l *load.Loader, s load.Schema, response bool) (*descriptor.Body, []error) {
	w := &walker{l: l, response: response}
	target, err := l.Deref(s)
	if err != nil {
		return &descriptor.Body{Schema: s.Origin.String(), Fields: []descriptor.Field{{Open: true}}}, []error{err}
	}
	w.value(nil, "", load.Property{Decl: s, Schema: target})
	below := w.fields[1:] // the root stays first
	slices.SortStableFunc(below, func(a, b descriptor.Field) int { return a.Path.Compare(b.Path) })
	return &descriptor.Body{Schema: target.Origin.String(), Fields: w.fields}, w.errs
}

// value records the field at path and walks below it. parent is the name
// of the member that holds the value's object, for the key-like rule.
func (w *walker) value(path descriptor.Path, parent string, p load.Property) {
	s := p.Schema
	f := descriptor.Field{
		Path: path, Type: typeOf(s), Format: s.Format, Required: p.Required,
		Enum:     enumStrings(firstEnum(p.Decl, s)),
		EnumOpen: enumOpen(p.Decl) || enumOpen(s),
		ReadOnly: p.ReadOnly(),
	}
	f.Secret = p.Secret() || (w.response && f.Type == "string" && keyLike(lastName(path), parent))
	i := len(w.fields)
	w.fields = append(w.fields, f)
	key := s.Origin.String()
	for _, o := range w.stack {
		if o == key {
			w.fields[i].Open = true
			return
		}
	}
	if len(w.stack) >= maxDepth {
		w.fields[i].Open = true
		return
	}
	w.stack = append(w.stack, key)
	defer func() { w.stack = w.stack[:len(w.stack)-1] }()
	switch f.Type {
	case "object":
		w.fields[i].Open = w.object(path, s)
	case "array":
		if s.Items == nil || s.Items.Schema == nil {
			w.fields[i].Open = true
			return
		}
		w.child(path.Item(), lastName(path), s.Origin.Child("items"), s.Items.Schema)
	}
}

// object walks the members of an object schema and reports whether it is
// open (lists no members).
func (w *walker) object(path descriptor.Path, s load.Schema) bool {
	props, err := w.l.Properties(s)
	if err != nil {
		w.errs = append(w.errs, err)
		return true
	}
	for _, p := range props {
		w.value(path.Child(p.Name), lastName(path), p)
	}
	if ap := s.AdditionalProperties; ap != nil {
		if ap.Schema != nil {
			w.child(path.Value(), lastName(path), s.Origin.Child("additionalProperties"), ap.Schema)
			return false
		}
		if ap.Allows {
			return true
		}
	}
	return len(props) == 0
}

// child walks an unnamed schema below path (array items, map values).
func (w *walker) child(path descriptor.Path, parent string, origin load.Origin, decl *spec.Schema) {
	d := load.Schema{Schema: decl, Origin: origin}
	target, err := w.l.Deref(d)
	if err != nil {
		w.errs = append(w.errs, err)
		w.fields = append(w.fields, descriptor.Field{Path: path, Open: true})
		return
	}
	w.value(path, parent, load.Property{Decl: d, Schema: target})
}

// typeOf is the schema's JSON type; an untyped schema with members is an
// object, one with items an array.
func typeOf(s load.Schema) string {
	switch {
	case len(s.Type) > 0:
		return s.Type[0]
	case len(s.Properties) > 0 || len(s.AllOf) > 0 || s.AdditionalProperties != nil:
		return "object"
	case s.Items != nil:
		return "array"
	}
	return ""
}

// enumOpen reports x-ms-enum modelAsString: true.
func enumOpen(s load.Schema) bool {
	if s.Schema == nil {
		return false
	}
	mas, _ := load.ExtMap(s.Extensions, "x-ms-enum")["modelAsString"].(bool)
	return mas
}

func firstEnum(decl, s load.Schema) []any {
	if decl.Schema != nil && len(decl.Enum) > 0 {
		return decl.Enum
	}
	return s.Enum
}

// enumStrings returns the enum values as sorted strings, or nil.
func enumStrings(vals []any) []string {
	if len(vals) == 0 {
		return nil
	}
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		out = append(out, fmt.Sprint(v))
	}
	sort.Strings(out)
	return out
}

// lastName is the member name a path ends in, without array markers:
// keys[*] → keys, properties.primaryKey → primaryKey.
func lastName(path descriptor.Path) string {
	for len(path) > 0 && path.Last() == descriptor.Items {
		path = path.Parent()
	}
	return path.Last()
}

// keyLike is the rule for secrets in responses (see the package doc).
func keyLike(name, parent string) bool {
	n := strings.ToLower(name)
	for _, suffix := range []string{"key", "password", "token", "secret", "sasuri"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return strings.Contains(n, "connectionstring") || (n == "value" && strings.Contains(strings.ToLower(parent), "key"))
}
