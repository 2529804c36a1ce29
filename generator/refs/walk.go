package refs

import (
	"strings"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Finder detects references in the kinds of one loader's documents.
type Finder struct {
	l *load.Loader
	// bodies maps the origin of every PUT body definition of the loaded
	// documents to the ARM types it is the body of (bodies.go); built on
	// first use.
	bodies map[string][]string
	// defs are the body definitions by origin; parts the named parts of
	// the bodies by the origin of their definition.
	defs  map[string]load.Schema
	parts map[string][]part
}

// NewFinder returns a Finder over what l has loaded.
func NewFinder(l *load.Loader) *Finder { return &Finder{l: l} }

// Kind detects the references of a kind's spec and applies the references
// entries that select it (nil for none).
func (f *Finder) Kind(k *model.Kind, fixes *override.RefKind) (Kind, error) {
	r := k.Resource
	out := Kind{Kind: k.Name, Group: k.Package.Group, Version: k.Package.Version, ARMType: r.ARMType, References: []Reference{}}
	w := &walker{f: f, k: k, t: k.Table, stack: map[string]bool{}, children: children(k.Table), embedded: map[string]bool{}}
	for _, e := range r.Embedded {
		w.embedded[e.Path.String()] = true
	}
	if put := r.Ops["PUT"]; put != nil && put.Body != nil {
		if err := w.object(*put.Body, nil); err != nil {
			return out, err
		}
	}
	out.References, out.Removed = apply(w, fixes)
	if out.References == nil {
		out.References = []Reference{}
	}
	sortRefs(out.References)
	sortRefs(out.Removed)
	return out, nil
}

// slot is a value of the spec the rules judge: a property, or the items
// of an array property.
type slot struct {
	path descriptor.Path
	// name is the property's name (the array's, for items).
	name string
	// decl is the schema as written, schema the same with $refs followed.
	decl, schema load.Schema
	// desc is the description: the property's, else its target's.
	desc string
	// items is true for the items of an array.
	items bool
}

type walker struct {
	f *Finder
	k *model.Kind
	t *classify.Table
	// stack holds the definitions the walk is inside (recursion cut).
	stack map[string]bool
	// children are the spec entries by the text form of their parent path.
	children map[string][]classify.Entry
	// embedded are the child collections of the body (tree.Embedded).
	embedded map[string]bool
	found    []Reference
	// strings are the string slots of the spec: what an add may name.
	strings []descriptor.Path
}

// children indexes the spec entries of a table by parent path.
func children(t *classify.Table) map[string][]classify.Entry {
	out := map[string][]classify.Entry{}
	for _, e := range t.Entries {
		if inSpec(e) {
			key := e.Path.Parent().String()
			out[key] = append(out[key], e)
		}
	}
	return out
}

// inSpec reports an entry the spec has, with its swagger shape.
func inSpec(e classify.Entry) bool {
	return e.Class != classify.ReadOnly && !e.Hidden && (e.Override == nil || e.Override.Type == "")
}

// object walks the properties of an object schema below prefix.
func (w *walker) object(s load.Schema, prefix descriptor.Path) error {
	s, err := w.f.l.Deref(s)
	if err != nil {
		return err
	}
	key := s.Origin.String()
	if w.stack[key] {
		return nil
	}
	w.stack[key] = true
	defer delete(w.stack, key)
	props, err := w.f.l.Properties(s)
	if err != nil {
		return err
	}
	for _, p := range props {
		path := prefix.Child(p.Name)
		e, ok := w.t.Entry(path)
		if !ok || !inSpec(e) || p.Secret() {
			continue
		}
		sl := slot{path: path, name: p.Name, decl: p.Decl, schema: p.Schema, desc: p.Description()}
		if err := w.visit(sl, e); err != nil {
			return err
		}
	}
	return nil
}

// visit judges one slot, and walks below it when it is no reference.
func (w *walker) visit(s slot, e classify.Entry) error {
	sc := s.schema
	switch {
	case isString(sc):
		w.strings = append(w.strings, s.path)
		w.add(w.stringRef(s, e))
	case sc.Type.Contains("array") && sc.Items != nil && sc.Items.Schema != nil:
		decl := load.Schema{Schema: sc.Items.Schema, Origin: sc.Origin.Child("items")}
		items, err := w.f.l.Deref(decl)
		if err != nil {
			return err
		}
		desc := items.Description
		if desc == "" {
			desc = s.desc
		}
		is := slot{path: s.path.Item(), name: s.name, decl: decl, schema: items, desc: desc, items: true}
		return w.visitItems(is, e)
	case len(sc.Properties) == 0 && len(sc.AllOf) == 0 && sc.AdditionalProperties != nil && sc.AdditionalProperties.Schema != nil:
		if ref, ok := mapRef(s, e); ok {
			w.add(ref, true)
		}
		v, err := w.f.l.Deref(load.Schema{Schema: sc.AdditionalProperties.Schema, Origin: sc.Origin.Child("additionalProperties")})
		if err != nil {
			return err
		}
		if isObject(v) {
			return w.object(v, s.path.Value())
		}
	case isObject(sc):
		if ref, ok := w.objectRef(s); ok {
			w.add(ref, true)
			return nil
		}
		return w.object(sc, s.path)
	}
	return nil
}

// visitItems judges the items of an array.
func (w *walker) visitItems(s slot, e classify.Entry) error {
	switch {
	case isString(s.schema):
		w.strings = append(w.strings, s.path)
		w.add(w.stringRef(s, e))
	case isObject(s.schema):
		if w.embedded[s.path.Parent().String()] {
			return w.object(s.schema, s.path) // the body's own children, not references
		}
		if ref, ok := w.objectRef(s); ok {
			w.add(ref, true)
			return nil
		}
		return w.object(s.schema, s.path)
	}
	return nil
}

func (w *walker) add(r Reference, ok bool) {
	if ok {
		w.found = append(w.found, r)
	}
}

func isString(s load.Schema) bool { return s.Type.Contains("string") && len(s.Type) == 1 }

// isObject reports an object with declared properties.
func isObject(s load.Schema) bool { return len(s.Properties) > 0 || len(s.AllOf) > 0 }

// evidence is the origin a rule read: the declaration when the fact is on
// it, else the target schema.
func evidence(decl, schema load.Schema, on func(load.Schema) bool) string {
	if decl.Schema != nil && on(decl) {
		return decl.Origin.String()
	}
	return schema.Origin.String()
}

// lowerFirst is the name as a word for messages.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
