package classify

import (
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/facts"
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
	// RuleNotRealPatch is the rule of a property the PUT/PATCH comparison
	// cannot judge: the PATCH body is not a patch of the resource (it
	// lacks the PUT's tags: a bare envelope such as Web's
	// ProxyOnlyResource), so updates go through PUT.
	RuleNotRealPatch = "in the PUT body; the PATCH body is not a patch of the resource (no tags), so updates go through PUT"
	// RuleLocation and RuleExtendedLocation are the ARM-wide rules.
	RuleLocation         = "ARM-wide: a tracked resource's location is set once (common-types TrackedResource.location x-ms-mutability read, create; ARM RPC-Put-V1-14)"
	RuleExtendedLocation = "ARM-wide: a tracked resource's extendedLocation (edge zone) is set once, like its location (Terraform's edge_zone is ForceNew on every resource that has it)"
	// RuleServerFilled is the ARM-wide rule of members the service fills.
	RuleServerFilled = "ARM-wide: filled by the service wherever it appears (%s)"
	// RuleFactForceNew and RuleFactInPlace are the rules of the facts
	// table; the evidence follows.
	RuleFactForceNew = "terraform: Azure cannot update it in place: "
	RuleFactInPlace  = "terraform: Azure updates it in place: "
	// RuleFactConflict is the rule of a property missing from the PATCH
	// body on which the facts disagree: the comparison alone does not make
	// it createOnly.
	RuleFactConflict = "in the PUT body, not in the PATCH body, but the facts disagree, so it is not createOnly: "
	// RuleFactInPlaceBelow is the rule of a property missing from the
	// PATCH body that holds properties Azure updates in place.
	RuleFactInPlaceBelow = "in the PUT body, not in the PATCH body, but Azure updates properties inside it in place: "
	// RuleMutSplit is the rule of an object x-ms-mutability makes
	// createOnly that holds properties Azure updates in place; the
	// properties inside it the facts do not name stay createOnly
	// (RuleSplitParent).
	RuleMutSplit    = "x-ms-mutability has create but not update, but Azure updates properties inside it in place, so only the others are createOnly: "
	RuleSplitParent = "inside %s, which x-ms-mutability makes createOnly but for the properties Azure updates in place"
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
	// Source is the source that decided the class (SourceOverride,
	// SourceARM, SourceTerraform, SourceMutability, SourcePatch or
	// SourceSwagger); a property inside a createOnly or readOnly one has
	// its holder's source.
	Source string `json:"source,omitempty"`
	// Swagger is the class the swagger alone gives, when an ARM-wide rule
	// or the facts decided another one.
	Swagger Class `json:"swagger,omitempty"`
	// Facts cites what the facts table says about the property when it
	// did not decide the class: a conditional ForceNew, a conflict, or
	// agreement with the swagger.
	Facts string `json:"facts,omitempty"`
	// InPUT is true when the PUT body has the property.
	InPUT bool `json:"-"`
}

// The sources of a class, in the order they are consulted
// (docs/classification.md).
const (
	SourceOverride   = "override"
	SourceARM        = "arm"
	SourceTerraform  = "terraform"
	SourceMutability = "x-ms-mutability"
	SourcePatch      = "put/patch"
	SourceSwagger    = "swagger"
)

// Sources lists the sources in their order.
var Sources = []string{SourceOverride, SourceARM, SourceTerraform, SourceMutability, SourcePatch, SourceSwagger}

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

// Classify builds the table of a resource from its swagger and the
// ARM-wide rules alone.
func Classify(l *load.Loader, r *tree.Resource) (*Table, error) {
	return ClassifyWith(l, r, Inputs{})
}

// Inputs are what classification reads beside the swagger.
type Inputs struct {
	// Fixes are the overrides that select the resource (nil for none):
	// see fix.
	Fixes *override.Kind
	// Facts are the facts tables (nil for none).
	Facts *facts.Table
}

// classifier holds what the rules of one resource read.
type classifier struct {
	r          *tree.Resource
	put, patch pathSet
	get        pathSet
	hasGet     bool
	hasPatch   bool // a PATCH whose body the comparison may judge
	notPatch   bool // a PATCH whose body is not a patch of the resource
	tracked    bool // the PUT body has a top-level location
	facts      *facts.Table
	classes    map[string]Class
	sources    map[string]string
	split      map[string]bool // x-ms-mutability createOnly objects the facts opened
}

// ClassifyWith builds the table of a resource from its swagger, the
// ARM-wide rules, the facts and the overrides that select it.
func ClassifyWith(l *load.Loader, r *tree.Resource, in Inputs) (*Table, error) {
	c, err := newClassifier(l, r, in.Facts)
	if err != nil {
		return nil, err
	}
	fixes := in.Fixes
	t := &Table{index: map[string]int{}}
	paths := make([]descriptor.Path, 0, len(c.put)+len(c.get))
	for _, n := range c.put {
		paths = append(paths, n.path)
	}
	for k, n := range c.get {
		if _, ok := c.put[k]; !ok {
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
		if n, ok := c.put[key]; ok {
			e = c.decide(p, n)
		} else {
			e = Entry{Path: p, Class: ReadOnly, Rule: RuleGETOnly, Source: SourceSwagger, Type: jsonType(c.get[key].prop.Schema)}
			if pc, pp := inherited(p, c.classes); pc == ReadOnly {
				e.Rule, e.Source = sprintf(RuleReadOnlyParent, pp.String()), c.sources[pp.String()]
			}
		}
		if h := under(p, hidden); h != nil {
			e.Hidden, e.Rule = true, e.Rule+sprintf(RuleHiddenParent, h.String())
		}
		if f := fixes.At(p); f != nil {
			pc, pp := inherited(p, c.classes)
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
		c.classes[key], c.sources[key] = e.Class, e.Source
		t.index[key] = len(t.Entries)
		t.Entries = append(t.Entries, e)
	}
	return t, nil
}

// newClassifier walks the schemas of a resource.
func newClassifier(l *load.Loader, r *tree.Resource, f *facts.Table) (*classifier, error) {
	c := &classifier{r: r, facts: f, classes: map[string]Class{}, sources: map[string]string{}, split: map[string]bool{}}
	var err error
	if c.put, err = walkOp(l, r.Ops["PUT"], true); err != nil {
		return nil, err
	}
	if op := r.Ops["PATCH"]; op != nil && !r.PatchTagsOnly {
		if c.patch, err = walkOp(l, op, true); err != nil {
			return nil, err
		}
		// A PATCH body without the PUT's tags is not a patch of the
		// resource (Web's PATCH bodies are ProxyOnlyResource envelopes):
		// what it lacks says nothing about what ARM updates.
		_, putTags := c.put["tags"]
		c.notPatch = putTags && !c.patch.covers(descriptor.P("tags"))
		c.hasPatch = !c.notPatch
	}
	if c.get, err = walkOp(l, r.Ops["GET"], false); err != nil {
		return nil, err
	}
	c.hasGet = r.Ops["GET"] != nil
	_, c.tracked = c.put["location"]
	return c, nil
}

// decide classifies a property of the PUT body: the swagger's rules, then
// the ARM-wide rules and the facts on top of them.
func (c *classifier) decide(path descriptor.Path, n *node) Entry {
	e := Entry{Path: path, Required: n.prop.Required, Type: jsonType(n.prop.Schema), InPUT: true}
	pc, pp := inherited(path, c.classes)
	if pc == ReadOnly {
		e.Class, e.Rule, e.Source = ReadOnly, sprintf(RuleReadOnlyParent, pp.String()), c.sources[pp.String()]
		return e
	}
	ans := c.facts.Lookup(c.r.ARMType, path)
	swagger, rule := c.swagger(path, n)
	e.Class, e.Rule, e.Source = swagger, rule, sourceOf(rule)
	if swagger == ReadOnly || swagger == Secret {
		return e
	}
	if what, ok := serverFilled(path); ok {
		e.Class, e.Rule, e.Source, e.Swagger = ReadOnly, sprintf(RuleServerFilled, what), SourceARM, swagger
		return e
	}
	if pc == CreateOnly {
		e.Class, e.Rule, e.Source = CreateOnly, sprintf(RuleCreateOnlyParent, pp.String()), c.sources[pp.String()]
		return e
	}
	switch below := c.facts.UpdatedBelow(c.r.ARMType, path); {
	case c.armWide(path) != "":
		e.Class, e.Rule, e.Source = CreateOnly, c.armWide(path), SourceARM
	case ans.Verdict == facts.CreateOnly:
		e.Class, e.Rule, e.Source = CreateOnly, RuleFactForceNew+ans.Cite(), SourceTerraform
	case swagger == CreateOnly && ans.Verdict == facts.InPlace:
		e.Class, e.Rule, e.Source = Writable, RuleFactInPlace+ans.Cite(), SourceTerraform
	case rule == RuleNotInPATCH && ans.Verdict == facts.Conflict:
		e.Class, e.Rule, e.Source = Writable, RuleFactConflict+ans.Cite(), SourceTerraform
	case rule == RuleNotInPATCH && len(below) > 0:
		e.Class, e.Rule, e.Source = Writable, RuleFactInPlaceBelow+facts.Answer{Evidence: below}.Cite(), SourceTerraform
	case rule == RuleMutCreateOnly && len(below) > 0:
		// x-ms-mutability freezes the whole object, the facts show a
		// property inside updated in place: the object opens, and what
		// the facts do not name inside it stays createOnly.
		e.Class, e.Rule, e.Source = Writable, RuleMutSplit+facts.Answer{Evidence: below}.Cite(), SourceTerraform
		c.split[path.String()] = true
	case e.Class == Writable && ans.Verdict != facts.InPlace:
		if sp := c.splitAbove(path); sp != nil {
			if len(below) > 0 {
				c.split[path.String()] = true
			} else {
				e.Class, e.Rule, e.Source = CreateOnly, sprintf(RuleSplitParent, sp.String()), SourceMutability
			}
		}
	}
	if e.Class != swagger {
		e.Swagger = swagger
	} else if ans.Verdict != facts.None {
		e.Facts = ans.Verdict.String() + ": " + ans.Cite()
	}
	return e
}

// splitAbove returns the nearest holder of path that x-ms-mutability made
// createOnly and the facts opened, or nil.
func (c *classifier) splitAbove(path descriptor.Path) descriptor.Path {
	for p := parent(path); len(p) > 0; p = parent(p) {
		if c.split[p.String()] {
			return p
		}
	}
	return nil
}

// armWide returns the rule of an ARM-wide create-only property, or "".
func (c *classifier) armWide(path descriptor.Path) string {
	if !c.tracked || len(path) != 1 {
		return ""
	}
	switch path[0] {
	case "location":
		return RuleLocation
	case "extendedLocation":
		return RuleExtendedLocation
	}
	return ""
}

// serverFilled reports whether the service fills the member at path
// wherever it appears, and the ARM document that says so.
func serverFilled(path descriptor.Path) (string, bool) {
	last := path.Last()
	switch {
	case last == "provisioningState":
		return "provisioningState: the ARM resource provider contract's async-api-reference says the service sets it", true
	case (last == "principalId" || last == "clientId") && len(path) >= 3 && path[len(path)-2] == descriptor.Values && path[len(path)-3] == "userAssignedIdentities":
		return "userAssignedIdentities.*." + last + ": common-types managedidentity.json UserAssignedIdentity marks it readOnly", true
	case (last == "principalId" || last == "tenantId") && len(path) == 2 && path[0] == "identity":
		return "identity." + last + ": common-types managedidentity.json ManagedServiceIdentity marks it readOnly", true
	}
	return "", false
}

// sourceOf names the source of a rule of the swagger.
func sourceOf(rule string) string {
	switch rule {
	case RuleMutCreateOnly, RuleMutWriteOnly, RuleMutWritable, RuleMutNoCreate, RuleMutReadOnly:
		return SourceMutability
	case RuleNotInPATCH:
		return SourcePatch
	}
	return SourceSwagger
}

// swagger is the class the swagger gives a property of the PUT body that
// no readOnly parent holds.
func (c *classifier) swagger(path descriptor.Path, n *node) (Class, string) {
	p := n.prop
	if p.Secret() {
		if load.ExtBool(p.Decl.Extensions, "x-ms-secret") || load.ExtBool(p.Schema.Extensions, "x-ms-secret") {
			return Secret, RuleSecret
		}
		return Secret, RulePassword
	}
	mut, hasMut := p.Mutability()
	has := func(v string) bool {
		return slices.ContainsFunc(mut, func(m string) bool { return strings.EqualFold(m, v) })
	}
	if hasMut && !has("create") && !has("update") {
		return ReadOnly, RuleMutReadOnly
	}
	if p.ReadOnly() {
		return ReadOnly, RuleReadOnlyPUT
	}
	if pc, pp := inherited(path, c.classes); pc == CreateOnly {
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
	if c.hasPatch && !c.patch.covers(path) {
		return CreateOnly, RuleNotInPATCH
	}
	if c.hasGet && !c.get.covers(path) {
		return WriteOnly, RuleNotInGET
	}
	switch {
	case c.hasPatch && c.patch.covers(path):
		return Writable, RulePUTAndPATCH
	case c.notPatch:
		return Writable, RuleNotRealPatch
	case c.r.PatchTagsOnly:
		return Writable, RulePUTTagsPATCH
	}
	return Writable, RulePUTNoPATCH
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
			e.Was, e.Class, e.Rule, e.Source = e.Class, c, RuleOverride+f.Why("class"), SourceOverride
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
