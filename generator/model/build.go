package model

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/armature-dev/armature/generator/actions"
	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Input is one resource to model with its classification.
type Input struct {
	Resource *tree.Resource
	Table    *classify.Table
	// Fixes are the overrides that select the resource (nil for none): they
	// hide, rename, retype and open the enums of properties. Their class
	// decisions come through Table.
	Fixes *override.Kind
}

// Operator fields of every spec and status.
const (
	FieldAzureName     = "azureName"
	FieldOwner         = "owner"
	FieldResourceID    = "resourceID"
	FieldOperatorSpec  = "operatorSpec"
	FieldValuesFrom    = "valuesFrom"
	FieldConditions    = "conditions"
	FieldObserved      = "observedGeneration"
	FieldPlan          = "reconcilePlan"
	FieldLastOperation = "lastOperation"
)

// IsOperatorField reports whether a spec member is the operator's, never
// sent to ARM.
func IsOperatorField(name string) bool {
	switch name {
	case FieldAzureName, FieldOwner, FieldResourceID, FieldOperatorSpec, FieldValuesFrom:
		return true
	}
	return false
}

type side int

const (
	specSide side = iota
	statusSide
)

// Build turns classified resources into Go-shaped packages. Inputs are
// grouped by provider and api-version; kinds, structs and enums are sorted so
// that the same input always gives the same model.
func Build(l *load.Loader, inputs []Input, cfg Config) (*Model, []error) {
	if cfg.Domain == "" {
		cfg.Domain = DefaultDomain
	}
	sort.Slice(inputs, func(i, j int) bool { return inputs[i].Resource.ARMType < inputs[j].Resource.ARMType })
	m := &Model{Kinds: map[string]*Kind{}}
	builders := map[string]*pkgBuilder{}
	var errs []error
	builder := func(r *tree.Resource) *pkgBuilder {
		short, version := GroupShort(r.Provider), Version(r.APIVersion)
		key := short + "/" + version
		b := builders[key]
		if b == nil {
			b = newPkgBuilder(l, &Package{Group: short + "." + cfg.Domain, Short: short, Version: version, APIVersion: r.APIVersion, Provider: r.Provider})
			builders[key] = b
			m.Packages = append(m.Packages, b.pkg)
		}
		return b
	}
	// Kinds name their types first: a struct or enum built for an earlier
	// kind must not take the name of a later kind (see reserveKind).
	var reserved []Input
	for _, in := range inputs {
		if err := builder(in.Resource).reserveKind(in.Resource); err != nil {
			errs = append(errs, err)
			continue
		}
		reserved = append(reserved, in)
	}
	for _, in := range reserved {
		r := in.Resource
		b := builder(r)
		k, err := b.kind(in)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m.Kinds[strings.ToLower(r.ARMType)] = k
	}
	for _, k := range m.Kinds {
		k.Owner = m.Kinds[strings.ToLower(k.Resource.Owner)]
	}
	for _, b := range builders {
		b.finish()
		errs = append(errs, b.errs...)
	}
	sort.Slice(m.Packages, func(i, j int) bool {
		if m.Packages[i].Group != m.Packages[j].Group {
			return m.Packages[i].Group < m.Packages[j].Group
		}
		return m.Packages[i].Version < m.Packages[j].Version
	})
	return m, errs
}

type pkgBuilder struct {
	l       *load.Loader
	pkg     *Package
	structs map[string]*Struct // origin|side → struct
	busy    map[string]bool
	byName  map[string][]*Struct
	enums   map[string][]*Enum
	taken   map[string]bool
	// kindTypes are the Go names a kind owns: Kind, KindSpec, KindStatus,
	// KindList.
	kindTypes map[string]bool
	errs      []error
}

func newPkgBuilder(l *load.Loader, p *Package) *pkgBuilder {
	return &pkgBuilder{l: l, pkg: p, structs: map[string]*Struct{}, busy: map[string]bool{}, byName: map[string][]*Struct{}, enums: map[string][]*Enum{}, taken: map[string]bool{}, kindTypes: map[string]bool{}}
}

// reserveKind takes the Go names of a kind before any struct or enum of the
// package is named: the kind keeps its plain name (users write it in
// `kind:`), and a swagger definition of the same name — ARM embeds whole
// resources in others: NetworkSecurityGroup inside a NetworkInterface —
// becomes a struct named with the suffix Object (NetworkSecurityGroupObject;
// see typeName). Two kinds of one name are an error: kind names carry their
// parents' type segments, so that takes two ARM types differing only in case.
func (b *pkgBuilder) reserveKind(r *tree.Resource) error {
	name := KindNameOf(r)
	for _, n := range kindTypeNames(name) {
		if b.taken[n] {
			return &load.Error{Origin: opOrigin(r.Ops["PUT"], r), Msg: fmt.Sprintf("%s: kind name %s collides with another kind in %s/%s", r.ARMType, n, b.pkg.Group, b.pkg.Version)}
		}
	}
	for _, n := range kindTypeNames(name) {
		b.taken[n] = true
		b.kindTypes[n] = true
	}
	return nil
}

func kindTypeNames(kind string) []string {
	return []string{kind, kind + "Spec", kind + "Status", kind + "List"}
}

// typeName is the first name to try for a struct or enum called base: base
// itself, or base+"Object" when a kind owns base (a kind, its Spec, Status
// or List type).
func (b *pkgBuilder) typeName(base string) string {
	if b.kindTypes[base] {
		return base + "Object"
	}
	return base
}

func (b *pkgBuilder) finish() {
	b.shareNamesFirst()
	sort.Slice(b.pkg.Kinds, func(i, j int) bool { return b.pkg.Kinds[i].Name < b.pkg.Kinds[j].Name })
	sort.Slice(b.pkg.Structs, func(i, j int) bool { return b.pkg.Structs[i].Name < b.pkg.Structs[j].Name })
	sort.Slice(b.pkg.Enums, func(i, j int) bool { return b.pkg.Enums[i].Name < b.pkg.Enums[j].Name })
}

func (b *pkgBuilder) kind(in Input) (*Kind, error) {
	r := in.Resource
	name := KindNameOf(r) // reserved by reserveKind
	k := &Kind{Name: name, Package: b.pkg, Resource: r, Table: in.Table}
	put, get := r.Ops["PUT"], r.Ops["GET"]
	if put == nil {
		return nil, &load.Error{Origin: opOrigin(put, r), Msg: "resource has no PUT"}
	}
	k.Spec = &Struct{Name: name + "Spec", Doc: fmt.Sprintf("%sSpec is the desired state of a %s: the ARM request body, plus the operator fields azureName, owner, resourceID and operatorSpec.", name, r.ARMType)}
	k.Spec.Fields = operatorSpecFields(r)
	w := walk{table: in.Table, fixes: in.Fixes, kind: r.ARMType}
	if put.Body == nil {
		// ARM creates the resource from its path alone (an API Management
		// tag link, a SQL DNS alias): the spec is the operator fields, and
		// the descriptor says the PUT goes without a body (PutWithoutBody).
		k.Spec.Doc = fmt.Sprintf("%sSpec is the desired state of a %s: its PUT takes no request body, so the spec holds only the operator fields azureName, owner, resourceID and operatorSpec.", name, r.ARMType)
	} else {
		fields, err := b.fields(*put.Body, specSide, name, w)
		if err != nil {
			return nil, err
		}
		if err := addFields(k.Spec, fields, put.Body.Origin); err != nil {
			return nil, err
		}
	}
	k.Status = &Struct{Name: name + "Status", Doc: fmt.Sprintf("%sStatus is the observed state of a %s: the last GET from ARM, plus conditions.", name, r.ARMType)}
	k.Status.Fields = operatorStatusFields(r)
	if get != nil && get.Response != nil {
		fields, err := b.fields(*get.Response, statusSide, name, w)
		if err != nil {
			return nil, err
		}
		if err := addFields(k.Status, fields, get.Response.Origin); err != nil {
			return nil, err
		}
	}
	k.CreateOnly = createOnlyRules(k)
	for _, e := range in.Table.Entries {
		if e.Class == classify.Secret && !e.Hidden {
			k.SecretPaths = append(k.SecretPaths, e.Path)
		}
		if e.Default != "" {
			k.Defaults = append(k.Defaults, Default{Path: e.Path, JSON: e.Default, Because: e.Override.Why("default")})
		}
	}
	for _, a := range r.Actions {
		act, errs := actions.Describe(b.l, a)
		k.Actions = append(k.Actions, act)
		b.errs = append(b.errs, errs...)
	}
	b.pkg.Kinds = append(b.pkg.Kinds, k)
	return k, nil
}

func opOrigin(op *tree.Operation, r *tree.Resource) load.Origin {
	if op != nil {
		return op.Origin
	}
	return load.Origin{File: r.File, Pointer: "/paths"}
}

// addFields appends ARM fields to an operator struct, refusing a clash.
func addFields(st *Struct, fields []*Field, origin load.Origin) error {
	have := map[string]bool{}
	for _, f := range st.Fields {
		have[f.JSONName] = true
		have[f.GoName] = true
	}
	for _, f := range fields {
		if have[f.JSONName] && f.JSONName != "id" {
			return &load.Error{Origin: origin, Msg: fmt.Sprintf("property %q clashes with the operator field of the same name", f.JSONName)}
		}
		if have[f.GoName] {
			f.GoName += "_ARM"
		}
		st.Fields = append(st.Fields, f)
	}
	return nil
}

func operatorSpecFields(r *tree.Resource) []*Field {
	azureDoc := "AzureName is the name of the resource in Azure. Defaults to metadata.name."
	if r.Singleton != "" {
		azureDoc = fmt.Sprintf("AzureName is the name of the resource in Azure. This resource type is a singleton: it is always %q.", r.Singleton)
	}
	ownerDoc := fmt.Sprintf("Owner is the %s that owns this resource: a custom resource in the same namespace (name), or an ARM id (armId).", r.Owner)
	if r.Owner == "" {
		ownerDoc = "Owner is the ARM id of the scope this resource is created in (armId)."
	}
	return []*Field{
		{GoName: "AzureName", JSONName: FieldAzureName, Doc: azureDoc, Type: &TypeRef{Kind: String}},
		{GoName: "Owner", JSONName: FieldOwner, Doc: ownerDoc, Type: &TypeRef{Kind: OwnerRef}},
		{GoName: "ResourceID", JSONName: FieldResourceID, Doc: "ResourceID adopts an existing Azure resource by its ARM id: the operator reads it first and never creates it.", Type: &TypeRef{Kind: String}},
		{GoName: "OperatorSpec", JSONName: FieldOperatorSpec, Doc: "OperatorSpec says what the operator does beyond sending the spec to Azure (ignoreChanges: paths whose values are sent on create only and never corrected); it is never sent to ARM.", Type: &TypeRef{Kind: OperatorSpecRef}},
		{GoName: "ValuesFrom", JSONName: FieldValuesFrom, Doc: "ValuesFrom sets spec values from another object's field, a ConfigMap key or a Secret key (docs/references.md); it is never sent to ARM.", Type: &TypeRef{Kind: Slice, Elem: &TypeRef{Kind: ValueFromRef}}, Markers: []string{"listType=atomic", "kubebuilder:validation:MaxItems=32"}},
	}
}

func operatorStatusFields(r *tree.Resource) []*Field {
	fields := []*Field{
		{GoName: "Conditions", JSONName: FieldConditions, Doc: "Conditions of the resource; Ready summarises them, ActionRequired says whether the user must act.", Type: &TypeRef{Kind: Conditions}},
		{GoName: "ObservedGeneration", JSONName: FieldObserved, Doc: "ObservedGeneration is the spec generation the status describes.", Type: &TypeRef{Kind: Int64}},
		{GoName: "LastOperation", JSONName: FieldLastOperation, Doc: "LastOperation identifies the last ARM operation the operator saw finish (verb and a hash of its resume token).", Type: &TypeRef{Kind: String}},
		{GoName: "ReconcilePlan", JSONName: FieldPlan, Doc: "ReconcilePlan is what the reconciler would send to ARM (action, verb, id, body), written under the plan reconcile-policy; nothing is sent.", Type: &TypeRef{Kind: JSON}},
	}
	for _, g := range r.StatusGETs {
		if strings.Contains(g.Name, "{") {
			continue
		}
		name := StatusGETField(g.Name)
		fields = append(fields, &Field{GoName: Pascal(name), JSONName: name, Doc: fmt.Sprintf("%s is the result of GET %s, read with the resource.", Pascal(name), g.Path), Type: &TypeRef{Kind: JSON}})
	}
	return fields
}

// StatusGETField is the status field that holds an extra status GET:
// instanceView → instanceView, rollingUpgrades/latest → rollingUpgradesLatest.
func StatusGETField(name string) string {
	parts := strings.Split(name, "/")
	out := parts[0]
	for _, p := range parts[1:] {
		out += Pascal(p)
	}
	return out
}

// specExcluded reports a property that never appears in a spec: declared
// readOnly, or x-ms-mutability without create and update.
func specExcluded(p load.Property) bool {
	if p.ReadOnly() {
		return true
	}
	if m, ok := p.Mutability(); ok {
		create, update := false, false
		for _, v := range m {
			create = create || strings.EqualFold(v, "create")
			update = update || strings.EqualFold(v, "update")
		}
		return !create && !update
	}
	return false
}

// fields builds the fields of an object schema at w.prefix. At the body
// root, the classification table decides what the spec holds; below it the
// schema does, and overrides (through the table and w.fixes) at any depth.
func (b *pkgBuilder) fields(s load.Schema, sd side, hint string, w walk) ([]*Field, error) {
	props, err := b.l.Properties(s)
	if err != nil {
		return nil, err
	}
	var out []*Field
	used := map[string]bool{}
	renames := b.renames(props, w)
	for _, r := range renames {
		used[r] = true
	}
	for _, p := range props {
		path := w.path(p.Name)
		fix := w.fixes.At(path)
		e, known := w.entry(path)
		if known && e.Hidden {
			continue
		}
		// An override that changed the class decides; else the schema.
		overridden := known && e.Was != ""
		secret := p.Secret()
		if overridden {
			secret = e.Class == classify.Secret
		}
		if sd == specSide {
			switch {
			case overridden && e.Class == classify.ReadOnly:
				continue
			case !overridden && specExcluded(p):
				continue
			case !overridden && len(w.prefix) == 0 && known && e.Class == classify.ReadOnly:
				continue
			}
		}
		if sd == statusSide && secret {
			continue
		}
		name := goName(p, renames[p.Name], used)
		var t *TypeRef
		if fix != nil && fix.Type != "" {
			t = replacedType(fix.Type)
		} else if t, err = b.typeOf(p.Schema, &p, sd, hint+Pascal(p.Name), w.at(path), typeOpts{secret: secret, open: fix != nil && fix.EnumOpen, fix: fix}); err != nil {
			return nil, err
		}
		f := &Field{GoName: name, JSONName: p.Name, Doc: p.Description(), Type: t}
		if sd == specSide {
			f.Required = p.Required
			if p.Required {
				f.Doc = withRequired(f.Doc)
			}
			if fix != nil && fix.Type != "" {
				f.Markers = requiredMarker(p.Required)
			} else {
				f.Markers = validationMarkers(p, t)
			}
			if known && e.Default != "" {
				f.Doc = withDefault(f.Doc, e)
				b.checkDefault(w, fix, e, t)
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// typeOf maps a schema to a field type; w.prefix is the path of the value.
func (b *pkgBuilder) typeOf(s load.Schema, p *load.Property, sd side, hint string, w walk, o typeOpts) (*TypeRef, error) {
	if sd == specSide && o.secret {
		return &TypeRef{Kind: SecretRef}, nil
	}
	if p != nil && p.Conflict {
		// Subtypes disagree on this property's schema: keep any value.
		return &TypeRef{Kind: JSON}, nil
	}
	s, err := b.l.Deref(s)
	if err != nil {
		return nil, err
	}
	if len(s.Enum) > 0 && (s.Type.Contains("string") || len(s.Type) == 0) {
		if sd == statusSide {
			return &TypeRef{Kind: String}, nil
		}
		e := b.enum(s, hint, o.open)
		if o.open && !e.Closed && b.closedWithoutFix(s) {
			w.fixes.Applied(o.fix, "enum")
		}
		return &TypeRef{Kind: EnumRef, Enum: e}, nil
	}
	switch {
	case s.Type.Contains("string"):
		return &TypeRef{Kind: String}, nil
	case s.Type.Contains("boolean"):
		return &TypeRef{Kind: Bool}, nil
	case s.Type.Contains("integer"):
		if s.Format == "int32" {
			return &TypeRef{Kind: Int32}, nil
		}
		return &TypeRef{Kind: Int64}, nil
	case s.Type.Contains("number"):
		return &TypeRef{Kind: Float64}, nil
	case s.Type.Contains("array"):
		if s.Items == nil || s.Items.Schema == nil {
			return &TypeRef{Kind: Slice, Elem: &TypeRef{Kind: JSON}}, nil
		}
		elem, err := b.typeOf(load.Schema{Schema: s.Items.Schema, Origin: s.Origin.Child("items")}, nil, sd, hint+"Item", w.at(w.prefix.Item()), typeOpts{open: o.open, fix: o.fix})
		if err != nil {
			return nil, err
		}
		return &TypeRef{Kind: Slice, Elem: elem}, nil
	case len(s.Properties) > 0 || len(s.AllOf) > 0:
		st, err := b.structOf(s, sd, hint, w)
		if err != nil {
			return nil, err
		}
		if st == nil {
			return &TypeRef{Kind: JSON}, nil // recursion cut here
		}
		return &TypeRef{Kind: StructRef, Struct: st}, nil
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		elem, err := b.typeOf(load.Schema{Schema: s.AdditionalProperties.Schema, Origin: s.Origin.Child("additionalProperties")}, nil, sd, hint+"Value", w.at(w.prefix.Value()), typeOpts{open: o.open, fix: o.fix})
		if err != nil {
			return nil, err
		}
		return &TypeRef{Kind: Map, Elem: elem}, nil
	case s.AdditionalProperties != nil && s.AdditionalProperties.Allows:
		return &TypeRef{Kind: Map, Elem: &TypeRef{Kind: JSON}}, nil
	default:
		return &TypeRef{Kind: JSON}, nil
	}
}

// structOf builds (once per schema and side) the struct of an object schema.
// It returns nil when the schema is already being built: a recursion, which
// the caller cuts with a JSON field.
//
// Structs are shared by every path and kind that uses the schema, except
// where an override matches a path below w.prefix: the struct is then built
// for that kind and path (and still merged with an identical one).
func (b *pkgBuilder) structOf(s load.Schema, sd side, hint string, w walk) (*Struct, error) {
	key := s.Origin.String()
	if sd == statusSide {
		key += "|status"
	}
	busy := key
	if w.fixes.Below(w.prefix) {
		key += "|" + w.kind + "|" + w.prefix.String()
	}
	if st, ok := b.structs[key]; ok {
		return st, nil
	}
	if b.busy[busy] {
		return nil, nil
	}
	b.busy[busy] = true
	defer delete(b.busy, busy)
	base := hint
	if s.Name != "" {
		base = Pascal(s.Name)
	}
	fields, err := b.fields(s, sd, base, w)
	if err != nil {
		return nil, err
	}
	name := base
	if sd == statusSide {
		name += "_STATUS"
	}
	st := &Struct{Name: name, Doc: s.Description, Fields: fields, Origin: s.Origin.String(), specific: key != busy}
	st = b.nameStruct(st)
	if key == busy {
		st.specific = false // shared, even if an override's variant was identical
	}
	b.structs[key] = st
	return st, nil
}

// nameStruct reuses an identical struct of the same name, or gives st a
// free name (Name, Name2, …).
func (b *pkgBuilder) nameStruct(st *Struct) *Struct {
	base := st.Name
	for _, other := range b.byName[base] {
		if sameFields(other.Fields, st.Fields) {
			return other
		}
	}
	first := b.typeName(base)
	name := first
	for n := 2; b.taken[name]; n++ {
		name = fmt.Sprintf("%s%d", first, n)
	}
	st.Name = name
	b.taken[name] = true
	b.byName[base] = append(b.byName[base], st)
	b.pkg.Structs = append(b.pkg.Structs, st)
	return st
}

func sameFields(a, c []*Field) bool {
	if len(a) != len(c) {
		return false
	}
	for i := range a {
		x, y := a[i], c[i]
		if x.GoName != y.GoName || x.JSONName != y.JSONName || x.Required != y.Required || x.Doc != y.Doc ||
			strings.Join(x.Markers, "\n") != strings.Join(y.Markers, "\n") || !sameType(x.Type, y.Type) {
			return false
		}
	}
	return true
}

func sameType(a, c *TypeRef) bool {
	if a == nil || c == nil {
		return a == c
	}
	return a.Kind == c.Kind && a.Struct == c.Struct && a.Enum == c.Enum && sameType(a.Elem, c.Elem)
}

// enum builds or reuses the enum type of a string schema with `enum`; open
// makes it accept any string, whatever the swagger says.
func (b *pkgBuilder) enum(s load.Schema, hint string, open bool) *Enum {
	x := load.ExtMap(s.Extensions, "x-ms-enum")
	base := hint
	if n, _ := x["name"].(string); n != "" {
		base = Pascal(n)
	}
	closed := !open
	if mas, ok := x["modelAsString"].(bool); ok && mas {
		closed = false
	}
	docs := map[string]string{}
	if vs, ok := x["values"].([]any); ok {
		for _, v := range vs {
			vm, _ := v.(map[string]any)
			val := fmt.Sprint(vm["value"])
			if d, _ := vm["description"].(string); d != "" {
				docs[val] = d
			}
		}
	}
	e := &Enum{Name: base, Doc: s.Description, Closed: closed, specific: open && !closed && b.closedWithoutFix(s)}
	seen := map[string]bool{}
	var values []string
	for _, v := range s.Enum {
		str, ok := v.(string)
		if !ok || seen[str] {
			continue
		}
		seen[str] = true
		values = append(values, str)
	}
	sort.Strings(values)
	goNames := map[string]bool{}
	for _, v := range values {
		gn := base + "_" + Pascal(v)
		for n := 2; goNames[gn]; n++ {
			gn = fmt.Sprintf("%s_%s%d", base, Pascal(v), n)
		}
		goNames[gn] = true
		e.Values = append(e.Values, EnumValue{GoName: gn, Value: v, Doc: docs[v]})
	}
	for _, other := range b.enums[base] {
		if sameEnum(other, e) {
			return other
		}
	}
	first := b.typeName(base)
	name := first
	for n := 2; b.taken[name]; n++ {
		name = fmt.Sprintf("%s%d", first, n)
	}
	if name != base {
		for i := range e.Values {
			e.Values[i].GoName = name + strings.TrimPrefix(e.Values[i].GoName, base)
		}
	}
	e.Name = name
	b.taken[name] = true
	b.enums[base] = append(b.enums[base], e)
	b.pkg.Enums = append(b.pkg.Enums, e)
	return e
}

func sameEnum(a, c *Enum) bool {
	if a.Closed != c.Closed || len(a.Values) != len(c.Values) {
		return false
	}
	for i := range a.Values {
		if a.Values[i].Value != c.Values[i].Value {
			return false
		}
	}
	return true
}

// validationMarkers turns swagger validations into kubebuilder markers for a
// spec field.
func validationMarkers(p load.Property, t *TypeRef) []string {
	s := p.Schema
	out := requiredMarker(p.Required)
	switch t.Kind {
	case String:
		if s.MinLength != nil {
			out = append(out, fmt.Sprintf("kubebuilder:validation:MinLength=%d", *s.MinLength))
		}
		if s.MaxLength != nil {
			out = append(out, fmt.Sprintf("kubebuilder:validation:MaxLength=%d", *s.MaxLength))
		}
		if s.Pattern != "" && markerSafePattern(s.Pattern) {
			out = append(out, "kubebuilder:validation:Pattern=`"+s.Pattern+"`")
		}
	case Int32, Int64, Float64:
		if s.Minimum != nil {
			out = append(out, "kubebuilder:validation:Minimum="+num(*s.Minimum, t.Kind))
			if s.ExclusiveMinimum {
				out = append(out, "kubebuilder:validation:ExclusiveMinimum=true")
			}
		}
		if s.Maximum != nil {
			out = append(out, "kubebuilder:validation:Maximum="+num(*s.Maximum, t.Kind))
			if s.ExclusiveMaximum {
				out = append(out, "kubebuilder:validation:ExclusiveMaximum=true")
			}
		}
	case Slice:
		if s.MinItems != nil {
			out = append(out, fmt.Sprintf("kubebuilder:validation:MinItems=%d", *s.MinItems))
		}
		if s.MaxItems != nil {
			out = append(out, fmt.Sprintf("kubebuilder:validation:MaxItems=%d", *s.MaxItems))
		}
	}
	return out
}

func num(v float64, k RefKind) string {
	if k == Float64 {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatInt(int64(v), 10)
}

// markerSafePattern keeps patterns that Go's regexp (which the apiserver
// uses) accepts and that can be written in a backquoted marker.
func markerSafePattern(p string) bool {
	if strings.ContainsAny(p, "`\n") {
		return false
	}
	_, err := regexp.Compile(p)
	return err == nil
}

// createOnlyRules writes a CEL transition rule on the spec for every topmost
// createOnly path that CEL can reach: presence and value may not change.
// Paths inside arrays or maps, at or below a free-form field, are left to
// the webhook.
func createOnlyRules(k *Kind) []Validation {
	var out []Validation
	for _, e := range k.Table.Entries {
		if e.Class != classify.CreateOnly || slices.ContainsFunc(e.Path, descriptor.IsWildcard) {
			continue
		}
		segs := []string(e.Path)
		if len(segs) > 1 {
			if c, _ := k.Table.Class(e.Path.Parent()); c == classify.CreateOnly {
				continue // the parent's rule covers it
			}
		}
		if !reachable(k.Spec, segs) {
			continue
		}
		cel := make([]string, len(segs))
		ok := true
		for i, s := range segs {
			if cel[i], ok = CELField(s); !ok {
				break
			}
		}
		if !ok {
			continue
		}
		has := func(root string) string {
			parts := make([]string, len(cel))
			for i := range cel {
				parts[i] = "has(" + root + "." + strings.Join(cel[:i+1], ".") + ")"
			}
			return strings.Join(parts, " && ")
		}
		value := "." + strings.Join(cel, ".")
		newHas, oldHas := has("self"), has("oldSelf")
		if len(cel) > 1 {
			newHas, oldHas = "("+newHas+")", "("+oldHas+")"
		}
		rule := fmt.Sprintf("%s == %s && (!%s || self%s == oldSelf%s)", newHas, oldHas, newHas, value, value)
		v := Validation{
			Rule:    rule,
			Message: fmt.Sprintf("%s is create-only: it cannot be added, changed or removed after creation; delete and recreate the resource to change it", e.Path.FieldPath(field.NewPath("spec"))),
		}
		idents := true
		for _, s := range segs {
			idents = idents && isIdent(s)
		}
		if idents {
			v.FieldPath = "." + strings.Join(segs, ".")
		}
		out = append(out, v)
	}
	return out
}

// freeForm says whether t is free-form JSON, or a list or map whose
// elements are.
func freeForm(t *TypeRef) bool {
	for ; t != nil; t = t.Elem {
		if t.Kind == JSON {
			return true
		}
	}
	return false
}

// reachable reports whether a dotted path names struct fields all the way
// down from st.
func reachable(st *Struct, segs []string) bool {
	for i, s := range segs {
		var f *Field
		for _, x := range st.Fields {
			if x.JSONName == s {
				f = x
				break
			}
		}
		if f == nil {
			return false
		}
		if i == len(segs)-1 {
			// A free-form field (JSON), or a list or map of them, has no
			// schema CEL can type: the apiserver refuses a rule that names
			// it ("undefined field").
			return !freeForm(f.Type)
		}
		if f.Type.Kind != StructRef {
			return false
		}
		st = f.Type.Struct
	}
	return false
}
