package load

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/go-openapi/spec"
)

// maxRefHops bounds a chain of `$ref`s that point at `$ref`s.
const maxRefHops = 32

// Schema is a go-openapi schema with the place it was read from. The
// embedded schema belongs to the loaded document and must not be modified.
type Schema struct {
	*spec.Schema
	Origin Origin
	// Name is the definition name when Origin is `#/definitions/<Name>`.
	Name string
}

// IsRef reports whether the schema is a `$ref`.
func (s Schema) IsRef() bool { return s.Schema != nil && s.Ref.String() != "" }

// Deref follows `$ref`s until it reaches a schema that is not one. A schema
// without a `$ref` is returned as is.
func (l *Loader) Deref(s Schema) (Schema, error) {
	for hop := 0; s.IsRef(); hop++ {
		if hop == maxRefHops {
			return Schema{}, &Error{Origin: s.Origin, Msg: "too many chained $refs (a $ref cycle?)"}
		}
		next, err := l.resolve(s.Origin, s.Ref)
		if err != nil {
			return Schema{}, err
		}
		s = next
	}
	return s, nil
}

// resolve finds the target of ref, written at from.
func (l *Loader) resolve(from Origin, ref spec.Ref) (Schema, error) {
	u := ref.GetURL()
	if u == nil {
		return Schema{}, &Error{Origin: from, Msg: fmt.Sprintf("invalid $ref %q", ref.String())}
	}
	file := from.File
	if u.Path != "" {
		file = cleanRel(path.Join(path.Dir(from.File), u.Path))
	}
	if u.Fragment == "" && u.Path != "" {
		return l.wholeFile(from, file, ref)
	}
	doc, ok := l.docs[file]
	if !ok {
		var err error
		if doc, err = l.Load(file); err != nil {
			return Schema{}, &Error{Origin: from, Msg: fmt.Sprintf("dangling $ref %q", ref.String()), Err: err}
		}
	}
	s, err := lookupSchema(doc, u.Fragment)
	if err != nil {
		return Schema{}, &Error{Origin: from, Msg: fmt.Sprintf("dangling $ref %q: %v", ref.String(), err)}
	}
	return s, nil
}

// wholeFile resolves a $ref to a whole file (no #fragment): the file is a
// JSON schema itself (OperationalInsights once referenced managed identity
// types this way). Its origin is the file with an empty pointer.
func (l *Loader) wholeFile(from Origin, file string, ref spec.Ref) (Schema, error) {
	if s, ok := l.files[file]; ok {
		return Schema{Schema: s, Origin: Origin{File: file}}, nil
	}
	raw, err := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(file)))
	if err != nil {
		return Schema{}, &Error{Origin: from, Msg: fmt.Sprintf("dangling $ref %q", ref.String()), Err: err}
	}
	s := new(spec.Schema)
	if err := json.Unmarshal(raw, s); err != nil {
		return Schema{}, &Error{Origin: from, Msg: fmt.Sprintf("$ref %q: the file is not a JSON schema", ref.String()), Err: err}
	}
	l.files[file] = s
	return Schema{Schema: s, Origin: Origin{File: file}}, nil
}

// lookupSchema walks a JSON pointer into a document. It understands the
// pointers ARM specs use: definitions and parameters, then properties, items,
// additionalProperties and allOf below them.
func lookupSchema(doc *Document, pointer string) (Schema, error) {
	tokens := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	if len(tokens) < 2 {
		return Schema{}, fmt.Errorf("pointer %q does not name a schema", pointer)
	}
	origin := Origin{File: doc.Path}
	var cur *spec.Schema
	name := unescape(tokens[1])
	switch tokens[0] {
	case "definitions":
		def, ok := doc.Swagger.Definitions[name]
		if !ok {
			return Schema{}, fmt.Errorf("no definition %q in %s", name, doc.Path)
		}
		cur = &def
	case "parameters":
		p, ok := doc.Swagger.Parameters[name]
		if !ok || p.Schema == nil || len(tokens) < 3 || tokens[2] != "schema" {
			return Schema{}, fmt.Errorf("no body parameter schema at %q in %s", pointer, doc.Path)
		}
		cur = p.Schema
		tokens = append(tokens[:2:2], tokens[3:]...)
		origin = origin.Child("parameters", name, "schema")
	default:
		return Schema{}, fmt.Errorf("pointer %q: only #/definitions/... and #/parameters/... are supported", pointer)
	}
	if tokens[0] == "definitions" {
		origin = origin.Child("definitions", name)
	}
	out := Schema{Schema: cur, Origin: origin}
	if len(tokens) == 2 && tokens[0] == "definitions" {
		out.Name = name
	}
	for i := 2; i < len(tokens); i++ {
		t := unescape(tokens[i])
		switch {
		case t == "properties" && i+1 < len(tokens):
			p := unescape(tokens[i+1])
			ps, ok := cur.Properties[p]
			if !ok {
				return Schema{}, fmt.Errorf("no property %q at %s", p, origin)
			}
			cur = &ps
			origin = origin.Child("properties", p)
			i++
		case t == "items" && cur.Items != nil && cur.Items.Schema != nil:
			cur = cur.Items.Schema
			origin = origin.Child("items")
		case t == "additionalProperties" && cur.AdditionalProperties != nil && cur.AdditionalProperties.Schema != nil:
			cur = cur.AdditionalProperties.Schema
			origin = origin.Child("additionalProperties")
		case t == "allOf" && i+1 < len(tokens):
			n, err := strconv.Atoi(tokens[i+1])
			if err != nil || n < 0 || n >= len(cur.AllOf) {
				return Schema{}, fmt.Errorf("no allOf item %q at %s", tokens[i+1], origin)
			}
			cur = &cur.AllOf[n]
			origin = origin.Child("allOf", tokens[i+1])
			i++
		default:
			return Schema{}, fmt.Errorf("cannot follow %q at %s", t, origin)
		}
		out = Schema{Schema: cur, Origin: origin}
	}
	return out, nil
}

// Parameter is a resolved operation parameter with its origin.
type Parameter struct {
	*spec.Parameter
	Origin Origin
}

// Param resolves a parameter that may be a `$ref` to `#/parameters/X`,
// possibly in another file.
func (l *Loader) Param(from Origin, p *spec.Parameter) (Parameter, error) {
	for hop := 0; p.Ref.String() != ""; hop++ {
		if hop == maxRefHops {
			return Parameter{}, &Error{Origin: from, Msg: "too many chained parameter $refs"}
		}
		u := p.Ref.GetURL()
		file := from.File
		if u.Path != "" {
			file = cleanRel(path.Join(path.Dir(from.File), u.Path))
		}
		doc, err := l.Load(file)
		if err != nil {
			return Parameter{}, &Error{Origin: from, Msg: fmt.Sprintf("dangling $ref %q", p.Ref.String()), Err: err}
		}
		tokens := strings.Split(strings.TrimPrefix(u.Fragment, "/"), "/")
		if len(tokens) != 2 || tokens[0] != "parameters" {
			return Parameter{}, &Error{Origin: from, Msg: fmt.Sprintf("parameter $ref %q must point at #/parameters/<name>", p.Ref.String())}
		}
		name := unescape(tokens[1])
		target, ok := doc.Swagger.Parameters[name]
		if !ok {
			return Parameter{}, &Error{Origin: from, Msg: fmt.Sprintf("dangling $ref %q: no parameter %q in %s", p.Ref.String(), name, file)}
		}
		p = &target
		from = Origin{File: file, Pointer: "/parameters/" + escape(name)}
	}
	return Parameter{Parameter: p, Origin: from}, nil
}

// BodySchema returns the schema of a body parameter.
func (p Parameter) BodySchema() (Schema, bool) {
	if p.In != "body" || p.Schema == nil {
		return Schema{}, false
	}
	return Schema{Schema: p.Schema, Origin: p.Origin.Child("schema")}, true
}

// Ext returns a vendor extension by name, ignoring case (go-openapi keeps the
// key as written but looks it up in lower case).
func Ext(e spec.Extensions, name string) (any, bool) {
	if v, ok := e[name]; ok {
		return v, true
	}
	for k, v := range e {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// ExtString returns a string extension.
func ExtString(e spec.Extensions, name string) string {
	v, _ := Ext(e, name)
	s, _ := v.(string)
	return s
}

// ExtBool returns a boolean extension.
func ExtBool(e spec.Extensions, name string) bool {
	v, _ := Ext(e, name)
	b, _ := v.(bool)
	return b
}

// ExtStrings returns a string-list extension and whether it was present.
func ExtStrings(e spec.Extensions, name string) ([]string, bool) {
	v, ok := Ext(e, name)
	if !ok {
		return nil, false
	}
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out, true
}

// ExtMap returns an object extension.
func ExtMap(e spec.Extensions, name string) map[string]any {
	v, _ := Ext(e, name)
	m, _ := v.(map[string]any)
	return m
}

// SortedKeys returns the keys of a map in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
