package classify

import (
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Class is what a property is to a user of the CRD: the runtime's type.
type Class = descriptor.Class

// The classes.
const (
	Writable   = descriptor.Writable
	CreateOnly = descriptor.CreateOnly
	ReadOnly   = descriptor.ReadOnly
	WriteOnly  = descriptor.WriteOnly
	Secret     = descriptor.Secret
)

// Rules, as reported in the table.
const (
	RuleReadOnlyParent   = "inside readOnly %s"
	RuleSecret           = "x-ms-secret: true"
	RulePassword         = "format: password"
	RuleMutReadOnly      = "x-ms-mutability without create or update"
	RuleReadOnlyPUT      = "readOnly: true in the PUT body schema"
	RuleCreateOnlyParent = "inside createOnly %s"
	RuleMutCreateOnly    = "x-ms-mutability has create but not update"
	RuleMutWriteOnly     = "x-ms-mutability without read"
	RuleMutWritable      = "x-ms-mutability has update"
	RuleMutNoCreate      = "x-ms-mutability has update but not create: not sent on create"
	RuleNotInPATCH       = "in the PUT body, not in the PATCH body"
	RuleNotInGET         = "in the PUT body, never returned by GET"
	RulePUTAndPATCH      = "in the PUT body and the PATCH body"
	RulePUTNoPATCH       = "in the PUT body; the resource has no PATCH"
	RulePUTTagsPATCH     = "in the PUT body; PATCH only updates tags, so updates go through PUT"
	RuleGETOnly          = "only in the GET response"
	// RuleOverride is the rule of a class an override decided; the
	// override's because follows.
	RuleOverride = "override: "
	// RuleHidden is added to the rule of a property an override hides.
	RuleHidden = "; hidden by override: "
	// RuleHiddenParent is added to the rule of a property inside a hidden
	// one.
	RuleHiddenParent = "; hidden inside %s"
)

// Entry is the class of one property path.
type Entry struct {
	Path  descriptor.Path `json:"path"`
	Class Class           `json:"class"`
	Rule  string          `json:"rule"`
	// Required is true when the PUT body requires the property.
	Required bool `json:"required,omitempty"`
	// Type is the JSON type: string, integer, number, boolean, object or
	// array ("" when the schema does not say).
	Type string `json:"type,omitempty"`
	// Hidden is true when an override keeps the property (or one it is
	// inside) out of the CRD.
	Hidden bool `json:"hidden,omitempty"`
	// Default is the default an override gives, as compact JSON ("" for
	// none, or when it cannot apply).
	Default string `json:"default,omitempty"`
	// Was is the class the swagger gave, when an override changed it.
	Was Class `json:"was,omitempty"`
	// Override is what the overrides of specs/armature.yaml say about the
	// property, or nil.
	Override *override.Fix `json:"override,omitempty"`
	// InPUT is true when the PUT body has the property.
	InPUT bool `json:"-"`
}

// OverrideSummary says in a few words what overrides changed at the
// property ("class readOnly", "hidden", `default "TLS1_2"`, joined by
// ", "), or "".
func (e Entry) OverrideSummary() string {
	f := e.Override
	if f == nil {
		return ""
	}
	var out []string
	if e.Was != "" {
		out = append(out, "class "+string(e.Class)+" (swagger: "+string(e.Was)+")")
	}
	if f.EnumOpen {
		out = append(out, "enum open")
	}
	if f.Type != "" {
		out = append(out, "type "+f.Type)
	}
	if f.Hide {
		out = append(out, "hidden")
	}
	if e.Default != "" {
		out = append(out, "default "+e.Default)
	}
	if f.Rename != "" {
		out = append(out, "Go name "+f.Rename)
	}
	return strings.Join(out, ", ")
}

// Table is the classification of one resource, sorted by path.
type Table struct {
	Entries []Entry
	index   map[string]int
}

// Class returns the class of a path and whether the path is known.
func (t *Table) Class(path descriptor.Path) (Class, bool) {
	i, ok := t.index[path.String()]
	if !ok {
		return "", false
	}
	return t.Entries[i].Class, true
}

// Entry returns the entry of a path.
func (t *Table) Entry(path descriptor.Path) (Entry, bool) {
	i, ok := t.index[path.String()]
	if !ok {
		return Entry{}, false
	}
	return t.Entries[i], true
}

// node is what a walk learns about one path.
type node struct {
	path descriptor.Path
	prop load.Property
	// open is true for a free-form object: every path below it is allowed.
	open bool
}

// pathSet holds the nodes of a walk by the text form of their path.
type pathSet map[string]*node

// covers reports whether the set holds path, or an open ancestor of it.
func (s pathSet) covers(path descriptor.Path) bool {
	if s == nil {
		return false
	}
	if _, ok := s[path.String()]; ok {
		return true
	}
	for p := parent(path); len(p) > 0; p = parent(p) {
		if n, ok := s[p.String()]; ok && n.open {
			return true
		}
	}
	return false
}

// parent returns the path of the property that holds path (nil at the root).
func parent(path descriptor.Path) descriptor.Path { return path.Holder() }

// Classify builds the table of a resource from its swagger alone.
func Classify(l *load.Loader, r *tree.Resource) (*Table, error) {
	return ClassifyWith(l, r, nil)
}

// ClassifyWith builds the table of a resource and applies the overrides
// that select it (nil for none): see fix.
func ClassifyWith(l *load.Loader, r *tree.Resource, fixes *override.Kind) (*Table, error) {
	put, err := walkOp(l, r.Ops["PUT"], true)
	if err != nil {
		return nil, err
	}
	var patch pathSet
	hasPatch := r.Ops["PATCH"] != nil && !r.PatchTagsOnly
	if op := r.Ops["PATCH"]; hasPatch {
		if patch, err = walkOp(l, op, true); err != nil {
			return nil, err
		}
	}
	get, err := walkOp(l, r.Ops["GET"], false)
	if err != nil {
		return nil, err
	}

	t := &Table{index: map[string]int{}}
	classes := map[string]Class{}
	paths := make([]descriptor.Path, 0, len(put)+len(get))
	for _, n := range put {
		paths = append(paths, n.path)
	}
	for k, n := range get {
		if _, ok := put[k]; !ok {
			paths = append(paths, n.path)
		}
	}
	// Parents sort before children, so parent classes are known first.
	slices.SortFunc(paths, descriptor.Path.Compare)
	var replaced, hidden []descriptor.Path // paths whose type an override replaced, hidden paths
	for _, p := range paths {
		key := p.String()
		if under(p, replaced) != nil {
			continue // the replaced schema has no declared properties
		}
		var e Entry
		if n, ok := put[key]; ok {
			c, rule := decide(p, n, classes, patch, hasPatch, get, r.Ops["GET"] != nil)
			if rule == RulePUTNoPATCH && r.PatchTagsOnly {
				rule = RulePUTTagsPATCH
			}
			e = Entry{Path: p, Class: c, Rule: rule, Required: n.prop.Required, Type: jsonType(n.prop.Schema), InPUT: true}
		} else {
			c, rule := ReadOnly, RuleGETOnly
			if pc, pp := inherited(p, classes); pc == ReadOnly {
				rule = sprintf(RuleReadOnlyParent, pp.String())
			}
			e = Entry{Path: p, Class: c, Rule: rule, Type: jsonType(get[key].prop.Schema)}
		}
		if h := under(p, hidden); h != nil {
			e.Hidden, e.Rule = true, e.Rule+sprintf(RuleHiddenParent, h.String())
		}
		if f := fixes.At(p); f != nil {
			pc, pp := inherited(p, classes)
			if pc != ReadOnly {
				pp = nil
			}
			fix(&e, f, fixes, pp)
			if f.Type != "" {
				replaced = append(replaced, p)
			}
			if f.Hide {
				hidden = append(hidden, p)
			}
		}
		classes[key] = e.Class
		t.index[key] = len(t.Entries)
		t.Entries = append(t.Entries, e)
	}
	return t, nil
}

// under returns the path of list that p is strictly below, or nil.
func under(p descriptor.Path, list []descriptor.Path) descriptor.Path {
	for _, q := range list {
		if p.Under(q) {
			return q
		}
	}
	return nil
}

// fix applies what the overrides say about one property to its entry:
// class, type, hide, and checks a default. Enum and rename are the model's.
// Properties below it inherit a readOnly or createOnly class as usual.
// readOnlyParent is the readOnly path the property is inside, or nil.
func fix(e *Entry, f *override.Fix, k *override.Kind, readOnlyParent descriptor.Path) {
	e.Override = f
	if f.Class != "" {
		c := Class(f.Class)
		switch {
		case c != ReadOnly && readOnlyParent != nil:
			k.Problem(f, "class", "class "+f.Class+" inside readOnly "+readOnlyParent.String()+", which is not in the spec: override "+readOnlyParent.String()+" too")
		case c != ReadOnly && !e.InPUT:
			k.Problem(f, "class", "class "+f.Class+" needs the property in the PUT body, and only the GET response has it")
		case c == Secret && e.Type != "string" && e.Type != "":
			k.Problem(f, "class", "class secret needs a string, and this is "+e.Type)
		case c != e.Class:
			e.Was, e.Class, e.Rule = e.Class, c, RuleOverride+f.Why("class")
			k.Applied(f, "class")
		}
	}
	if f.Type != "" {
		e.Type = config.Types[f.Type]
		k.Applied(f, "type")
	}
	if f.Hide {
		e.Hidden = true
		e.Rule += RuleHidden + f.Why("hide")
		k.Applied(f, "hide")
	}
	if f.Default != "" {
		switch {
		case !e.InPUT || e.Class == ReadOnly || e.Class == Secret:
			k.Problem(f, "default", "a default needs a "+string(Writable)+", "+string(CreateOnly)+" or "+string(WriteOnly)+" property of the spec, and this is "+string(e.Class))
		case e.Hidden:
			k.Problem(f, "default", "a hidden property takes no default")
		case !fitsType(f.Default, e.Type):
			k.Problem(f, "default", "default "+f.Default+" is not of the property's JSON type "+e.Type)
		default:
			e.Default = f.Default
			k.Applied(f, "default")
		}
	}
}

// fitsType reports whether a JSON value has a JSON type ("" fits anything).
func fitsType(value, typ string) bool {
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return false
	}
	switch x := v.(type) {
	case string:
		return typ == "" || typ == "string"
	case bool:
		return typ == "" || typ == "boolean"
	case float64:
		return typ == "" || typ == "number" || typ == "integer" && x == math.Trunc(x)
	case []any:
		return typ == "" || typ == "array"
	case map[string]any:
		return typ == "" || typ == "object"
	}
	return false
}

// inherited returns the class of the nearest ancestor that is readOnly or
// createOnly, and its path.
func inherited(path descriptor.Path, classes map[string]Class) (Class, descriptor.Path) {
	var found Class
	var at descriptor.Path
	for p := parent(path); len(p) > 0; p = parent(p) {
		if c := classes[p.String()]; c == ReadOnly || (c == CreateOnly && found == "") {
			found, at = c, p
			if c == ReadOnly {
				break
			}
		}
	}
	return found, at
}

func decide(path descriptor.Path, n *node, classes map[string]Class, patch pathSet, hasPatch bool, get pathSet, hasGet bool) (Class, string) {
	pc, pp := inherited(path, classes)
	if pc == ReadOnly {
		return ReadOnly, sprintf(RuleReadOnlyParent, pp.String())
	}
	p := n.prop
	if p.Secret() {
		if load.ExtBool(p.Decl.Extensions, "x-ms-secret") || load.ExtBool(p.Schema.Extensions, "x-ms-secret") {
			return Secret, RuleSecret
		}
		return Secret, RulePassword
	}
	mut, hasMut := p.Mutability()
	has := func(v string) bool {
		for _, m := range mut {
			if strings.EqualFold(m, v) {
				return true
			}
		}
		return false
	}
	if hasMut && !has("create") && !has("update") {
		return ReadOnly, RuleMutReadOnly
	}
	if p.ReadOnly() {
		return ReadOnly, RuleReadOnlyPUT
	}
	if pc == CreateOnly {
		return CreateOnly, sprintf(RuleCreateOnlyParent, pp.String())
	}
	if hasMut {
		switch {
		case has("create") && !has("update"):
			return CreateOnly, RuleMutCreateOnly
		case !has("read"):
			return WriteOnly, RuleMutWriteOnly
		case !has("create"):
			return Writable, RuleMutNoCreate
		default:
			return Writable, RuleMutWritable
		}
	}
	if hasPatch && !patch.covers(path) {
		return CreateOnly, RuleNotInPATCH
	}
	if hasGet && !get.covers(path) {
		return WriteOnly, RuleNotInGET
	}
	if hasPatch {
		return Writable, RulePUTAndPATCH
	}
	return Writable, RulePUTNoPATCH
}

func sprintf(format, arg string) string { return strings.Replace(format, "%s", arg, 1) }

// walkOp collects the property paths of an operation's body (request) or
// response.
func walkOp(l *load.Loader, op *tree.Operation, request bool) (pathSet, error) {
	if op == nil {
		return nil, nil
	}
	s := op.Response
	if request {
		s = op.Body
	}
	if s == nil {
		return pathSet{}, nil
	}
	out := pathSet{}
	w := &walker{l: l, out: out, stack: map[string]bool{}}
	if err := w.object(*s, nil); err != nil {
		return nil, err
	}
	return out, nil
}

type walker struct {
	l     *load.Loader
	out   pathSet
	stack map[string]bool
}

// object walks the properties of an object schema below prefix.
func (w *walker) object(s load.Schema, prefix descriptor.Path) error {
	s, err := w.l.Deref(s)
	if err != nil {
		return err
	}
	key := s.Origin.String()
	if w.stack[key] {
		return nil // recursion: the path stops at the named type
	}
	w.stack[key] = true
	defer delete(w.stack, key)
	props, err := w.l.Properties(s)
	if err != nil {
		return err
	}
	for _, p := range props {
		path := prefix.Child(p.Name)
		n := &node{path: path, prop: p}
		w.out[path.String()] = n
		if p.Secret() {
			continue
		}
		if err := w.value(p.Schema, path, n); err != nil {
			return err
		}
	}
	return nil
}

// value walks below a property: objects, array items and map values.
func (w *walker) value(s load.Schema, path descriptor.Path, n *node) error {
	switch {
	case s.Type.Contains("array") && s.Items != nil && s.Items.Schema != nil:
		item, err := w.l.Deref(load.Schema{Schema: s.Items.Schema, Origin: s.Origin.Child("items")})
		if err != nil {
			return err
		}
		if isObject(item) {
			return w.object(item, path.Item())
		}
	case len(s.Properties) > 0 || len(s.AllOf) > 0:
		return w.object(s, path)
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		v, err := w.l.Deref(load.Schema{Schema: s.AdditionalProperties.Schema, Origin: s.Origin.Child("additionalProperties")})
		if err != nil {
			return err
		}
		if isObject(v) {
			return w.object(v, path.Value())
		}
	case s.Type.Contains("object") || (len(s.Type) == 0 && s.Items == nil):
		n.open = true
	}
	return nil
}

func isObject(s load.Schema) bool {
	return len(s.Properties) > 0 || len(s.AllOf) > 0
}

// jsonType is the JSON type of a schema.
func jsonType(s load.Schema) string {
	switch {
	case s.Schema == nil:
		return ""
	case len(s.Type) > 0:
		return s.Type[0]
	case len(s.Properties) > 0 || len(s.AllOf) > 0 || s.AdditionalProperties != nil:
		return "object"
	}
	return ""
}
