package descriptor

import (
	"slices"
	"strings"
)

// Body is the schema of an action's request or response body, flattened
// into a field table. Fields[0] is the root (an empty Path); the others
// follow sorted by path. Paths are from the body root, with the wildcards
// Items and Values, as in Property.
type Body struct {
	// Required is true when a request must carry a body (the body
	// parameter is `required`). Always false for a response.
	Required bool
	// Schema is where the body's schema was read, e.g.
	// `storage.json#/definitions/StorageAccountRegenerateKeyParameters`.
	Schema string
	// Fields is the field table, root first.
	Fields []Field
}

// Field is one value of a body schema.
type Field struct {
	// Path is the field's path (empty for the root). A query parameter's
	// path is its name alone.
	Path Path
	// Type is the JSON type (string, integer, number, boolean, object,
	// array), or "" when the swagger does not say.
	Type string
	// Format is the swagger format (date-time, uuid, int32, …) or "".
	Format string
	// Required is true when the parent object lists the field as required.
	Required bool
	// Enum are the swagger's enum values as strings, sorted, or nil.
	Enum []string
	// EnumOpen is true when the enum is x-ms-enum modelAsString: true:
	// ARM then accepts other values too, and Enum only lists the known ones.
	EnumOpen bool
	// Secret marks a credential: x-ms-secret, format password, or — in a
	// response — a key-like name (see generator/actions). A secret is
	// written to a Kubernetes Secret, never to status.
	Secret bool
	// ReadOnly is the swagger's readOnly.
	ReadOnly bool
	// Open is true for an object whose members the swagger does not list
	// (a free-form object, or a recursive schema cut at its repetition):
	// any value is accepted below it.
	Open bool
}

// Action returns the POST action of the kind with a name (exact match
// first, then ignoring case), and false when there is none.
func (d *Descriptor) Action(name string) (*Action, bool) {
	for i := range d.Actions {
		if d.Actions[i].Name == name {
			return &d.Actions[i], true
		}
	}
	for i := range d.Actions {
		if strings.EqualFold(d.Actions[i].Name, name) {
			return &d.Actions[i], true
		}
	}
	return nil, false
}

// ActionNames returns the names of the kind's POST actions, in order.
func (d *Descriptor) ActionNames() []string {
	out := make([]string, len(d.Actions))
	for i, a := range d.Actions {
		out[i] = a.Name
	}
	return out
}

// Root returns the root field of the body.
func (b *Body) Root() Field {
	if b == nil || len(b.Fields) == 0 {
		return Field{Open: true}
	}
	return b.Fields[0]
}

// Name is the last segment of the field's path: a query parameter's name.
func (f Field) Name() string { return f.Path.Last() }

// Field returns the field at a table path, and false when the body has none.
func (b *Body) Field(path Path) (Field, bool) {
	if b == nil || len(b.Fields) == 0 {
		return Field{}, false
	}
	if len(path) == 0 {
		return b.Fields[0], true
	}
	rest := b.Fields[1:]
	i, found := slices.BinarySearchFunc(rest, path, func(f Field, p Path) int { return f.Path.Compare(p) })
	if found {
		return rest[i], true
	}
	return Field{}, false
}

// Children returns the fields directly below an object field, by member
// name (a map's value field is under Values). An array's item is not a
// child: look it up as path.Item().
func (b *Body) Children(path Path) map[string]Field {
	if b == nil || len(b.Fields) < 2 {
		return nil
	}
	rest := b.Fields[1:]
	out := map[string]Field{}
	i, _ := slices.BinarySearchFunc(rest, path, func(f Field, p Path) int { return f.Path.Compare(p) })
	for ; i < len(rest) && rest[i].Path.HasPrefix(path); i++ {
		if p := rest[i].Path; len(p) == len(path)+1 && p.Last() != Items {
			out[p.Last()] = rest[i]
		}
	}
	return out
}

// SecretPaths returns the paths of the secret fields, in order.
func (b *Body) SecretPaths() []Path {
	if b == nil {
		return nil
	}
	var out []Path
	for _, f := range b.Fields {
		if f.Secret {
			out = append(out, f.Path)
		}
	}
	return out
}
