package apidiff

import (
	"sort"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// prop is what one side says about one property path.
type prop struct {
	classify.Entry
	// specType is the type of the spec field at the path, Go-shaped
	// ("string", "int32", "[]object", "map[string]string", "secretRef"),
	// or "" when the spec has no field there.
	specType string
	// enum is the enum of the spec field (of its items for a slice or map),
	// or nil.
	enum *model.Enum
	// statusType is the type of the status field at the path, as specType
	// ("" when the status has none). Status enums are plain strings.
	statusType string
}

// inSpec reports whether a class puts the property in the spec.
func inSpec(c classify.Class) bool {
	switch c {
	case classify.Writable, classify.CreateOnly, classify.WriteOnly, classify.Secret:
		return true
	}
	return false
}

// typeName is the type to compare: the spec's Go-shaped type when both sides
// have one, else the status's, else the JSON type of the table.
func typeName(o, n *prop) (string, string) {
	switch {
	case o.specType != "" && n.specType != "":
		return o.specType, n.specType
	case o.statusType != "" && n.statusType != "":
		return o.statusType, n.statusType
	}
	return o.Type, n.Type
}

// typeOf is the type of a property as the report shows it.
func (p *prop) typeOf() string {
	switch {
	case p.specType != "":
		return p.specType
	case p.statusType != "":
		return p.statusType
	}
	return p.Type
}

// flatten returns the rows of a kind by path. Hidden properties are left out:
// they are not in the CRD.
func flatten(k *model.Kind) map[string]*prop {
	out := map[string]*prop{}
	if k.Table != nil {
		for _, e := range k.Table.Entries {
			if e.Hidden {
				continue
			}
			out[e.Path.String()] = &prop{Entry: e}
		}
	}
	spec := func(p *prop, t *model.TypeRef) { p.specType, p.enum = describe(t), enumOf(t) }
	status := func(p *prop, t *model.TypeRef) { p.statusType = describe(t) }
	for _, side := range []struct {
		st  *model.Struct
		set func(*prop, *model.TypeRef)
	}{{k.Spec, spec}, {k.Status, status}} {
		if side.st == nil {
			continue
		}
		// Operator fields (azureName, owner, conditions, …) are in no
		// table: the walk passes them by.
		w := structWalker{props: out, set: side.set, busy: map[*model.Struct]bool{}}
		for _, f := range side.st.Fields {
			w.field(descriptor.P(f.JSONName), f.Type)
		}
	}
	return out
}

// structWalker walks the spec or status struct of a kind along the table's
// paths; props are by the paths' text form.
type structWalker struct {
	props map[string]*prop
	set   func(*prop, *model.TypeRef)
	busy  map[*model.Struct]bool
}

// field records the type of the field at path and walks into it.
func (w *structWalker) field(path descriptor.Path, t *model.TypeRef) {
	if p := w.props[path.String()]; p != nil {
		w.set(p, t)
	}
	w.into(path, t)
}

// into walks the fields below a value of type t at path.
func (w *structWalker) into(path descriptor.Path, t *model.TypeRef) {
	if t == nil {
		return
	}
	switch t.Kind {
	case model.StructRef:
		if t.Struct == nil || w.busy[t.Struct] {
			return
		}
		w.busy[t.Struct] = true
		defer delete(w.busy, t.Struct)
		for _, f := range t.Struct.Fields {
			w.field(path.Child(f.JSONName), f.Type)
		}
	case model.Slice:
		w.into(path.Item(), t.Elem)
	case model.Map:
		w.into(path.Value(), t.Elem)
	}
}

// describe names a field type the way the report shows it.
func describe(t *model.TypeRef) string {
	if t == nil {
		return ""
	}
	switch t.Kind {
	case model.String, model.EnumRef:
		return "string"
	case model.Bool:
		return "boolean"
	case model.Int32:
		return "int32"
	case model.Int64:
		return "int64"
	case model.Float64:
		return "number"
	case model.StructRef:
		return "object"
	case model.Slice:
		return "[]" + describe(t.Elem)
	case model.Map:
		return "map[string]" + describe(t.Elem)
	case model.SecretRef:
		return "secretRef"
	default:
		return "json"
	}
}

// enumOf returns the enum of a field, of its items or of its map values.
func enumOf(t *model.TypeRef) *model.Enum {
	for t != nil {
		switch t.Kind {
		case model.EnumRef:
			return t.Enum
		case model.Slice, model.Map:
			t = t.Elem
		default:
			return nil
		}
	}
	return nil
}

// enumValues returns the values of an enum, sorted.
func enumValues(e *model.Enum) []string {
	if e == nil {
		return nil
	}
	out := make([]string, 0, len(e.Values))
	for _, v := range e.Values {
		out = append(out, v.Value)
	}
	sort.Strings(out)
	return out
}

// parent returns the path of the property a path is inside, or nil:
// `a.b[*].c` → `a.b`, `a.*.c` → `a`. It is classify's notion of parent.
func parent(path descriptor.Path) descriptor.Path { return path.Holder() }
