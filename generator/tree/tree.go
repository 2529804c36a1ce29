package tree

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/go-openapi/spec"

	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Scope is where in ARM a resource type lives: the runtime's type.
type Scope = descriptor.Scope

// Scopes, in order of preference when a type is served at several.
const (
	ScopeResourceGroup   = descriptor.ScopeResourceGroup
	ScopeSubscription    = descriptor.ScopeSubscription
	ScopeManagementGroup = descriptor.ScopeManagementGroup
	ScopeTenant          = descriptor.ScopeTenant
	ScopeExtension       = descriptor.ScopeExtension
)

var scopeRank = map[Scope]int{ScopeResourceGroup: 0, ScopeSubscription: 1, ScopeManagementGroup: 2, ScopeTenant: 3, ScopeExtension: 4}

// Well-known owner types.
const (
	ResourceGroupType   = "Microsoft.Resources/resourceGroups"
	SubscriptionType    = "Microsoft.Resources/subscriptions"
	ManagementGroupType = "Microsoft.Management/managementGroups"
)

// Resource is one ARM resource type found in the specs.
type Resource struct {
	// ARMType is the full type, e.g. Microsoft.Storage/storageAccounts/blobServices/containers.
	ARMType string
	// Provider is the namespace, e.g. Microsoft.Storage.
	Provider string
	// Types are the type segments after the provider.
	Types []string
	// APIVersion is the document's info.version.
	APIVersion string
	// File is the document that declares the path.
	File string
	// Path is the path template as written in the swagger.
	Path string
	// Scope is where the type lives.
	Scope Scope
	// Owner is the ARM type of the owner ("" for tenant and extension scope).
	Owner string
	// NameParam is the path parameter that names the resource ("" for a
	// literal singleton name).
	NameParam string
	// Singleton is the only name the resource can have, or "".
	Singleton string
	// Name is what the swagger declares about the name parameter's value
	// (pattern, lengths); nil when it declares none, or there is no name
	// parameter.
	Name *NameRule
	// PathValues are the path parameters this resource type fixes: a type
	// segment typed by an enum gives one resource type per value
	// (recordType → A for Microsoft.Network/privateDnsZones/A). Nil for
	// most types.
	PathValues map[string]string
	// Ops are the operations on the resource path, by upper-case method.
	Ops map[string]*Operation
	// Actions are POST operations below the resource path.
	Actions []*Action
	// StatusGETs are GETs below the resource path that return one object
	// (e.g. instanceView).
	StatusGETs []*Action
	// ListPaths are GET paths that list resources of this type.
	ListPaths []string
	// PatchTagsOnly is true when the PATCH body has no property but tags:
	// updates then go through PUT, and PATCH says nothing about what is
	// create-only.
	PatchTagsOnly bool
	// Embedded are the collections of the PUT body that are also child
	// resource types (embedded.go), sorted by path.
	Embedded []Embedded
}

// NameRule is the swagger's rule for a resource's name: the pattern,
// minLength and maxLength of its name path parameter.
type NameRule struct {
	// Pattern is the parameter's pattern as written (ECMA-262), or "".
	Pattern string
	// MinLength and MaxLength are 0 when not declared.
	MinLength, MaxLength int
	// Origin is where the parameter is declared: the path, or the
	// `#/parameters/X` a `$ref` points at.
	Origin load.Origin
}

// Verbs returns the methods present, sorted.
func (r *Resource) Verbs() []string {
	out := make([]string, 0, len(r.Ops))
	for m := range r.Ops {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// LongRunning returns the methods marked x-ms-long-running-operation, sorted.
func (r *Resource) LongRunning() []string {
	var out []string
	for m, op := range r.Ops {
		if op.LongRunning {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// Operation is one HTTP operation of a path.
type Operation struct {
	Method string
	ID     string
	Origin load.Origin
	// Body is the request body schema, if any.
	Body *load.Schema
	// BodyParam is the name of the body parameter (the key of the body in
	// x-ms-examples parameters).
	BodyParam string
	// BodyRequired is the body parameter's `required`.
	BodyRequired bool
	// Query are the query parameters other than api-version, in the
	// order the swagger lists them.
	Query []load.Parameter
	// Response is the schema of the 200 (else 201) response, if any.
	Response *load.Schema
	// LongRunning is x-ms-long-running-operation.
	LongRunning bool
	// FinalStateVia is x-ms-long-running-operation-options.final-state-via.
	FinalStateVia string
	// Examples maps x-ms-examples titles to example files (root-relative).
	Examples map[string]string
}

// Action is an operation on a path below a resource.
type Action struct {
	// Name is the path below the resource, e.g. regenerateKey or rollingUpgrades/cancel.
	Name string
	Path string
	Op   *Operation
}

// Skipped is a path (one operation of it, for paths attached after the
// resources are known) that does not become a resource, with why.
type Skipped struct {
	Path   string `json:"path"`
	File   string `json:"file"`
	Reason string `json:"reason"`
	// Category is the kind of reason, from the closed list of SkipCategory
	// constants; "" only for skips recorded outside this package (a
	// resource that failed later stages, or one a config excludes).
	// Not in the JSON of `armature inspect`, whose golden files belong to
	// the generator's tests; `armature sweep` reports it.
	Category SkipCategory `json:"-"`
}

// Tree is the result of Build.
type Tree struct {
	Resources []*Resource
	Skipped   []Skipped
}

// Resource returns the resource of an ARM type (case-insensitive), or nil.
func (t *Tree) Resource(armType string) *Resource {
	for _, r := range t.Resources {
		if strings.EqualFold(r.ARMType, armType) {
			return r
		}
	}
	return nil
}

// pseudoTypes are ARM types that are not resources users own: they are a
// facet of every resource and managed through it.
var pseudoTypes = map[string]string{
	"microsoft.resources/tags": "tags at any scope are a property of the resource they tag; set them in its spec.tags",
}

// parsed is a path split into its parts.
type parsed struct {
	scope    Scope
	provider string
	tokens   []string // after the provider
}

// Build reads the paths of docs and returns the resource tree. Errors are
// located problems in the swagger; the tree holds what could be built.
func Build(l *load.Loader, docs []*load.Document) (*Tree, []error) {
	b := &builder{l: l, byType: map[string]*Resource{}}
	for _, d := range docs {
		b.doc(d)
	}
	b.attach()
	b.markEmbedded()
	t := &Tree{Skipped: b.skipped}
	for _, r := range b.byType {
		t.Resources = append(t.Resources, r)
	}
	sort.Slice(t.Resources, func(i, j int) bool { return t.Resources[i].ARMType < t.Resources[j].ARMType })
	sort.SliceStable(t.Skipped, func(i, j int) bool {
		if t.Skipped[i].File != t.Skipped[j].File {
			return t.Skipped[i].File < t.Skipped[j].File
		}
		return t.Skipped[i].Path < t.Skipped[j].Path
	})
	return t, b.errs
}

type builder struct {
	l       *load.Loader
	byType  map[string]*Resource // lower-case ARM type
	dropped []*Resource          // the same type at a less preferred scope
	rest    []pending
	skipped []Skipped
	errs    []error
}

// pending is a non-resource path, attached to a resource after all
// resources are known.
type pending struct {
	doc  *load.Document
	path string
	p    parsed
	ops  map[string]*Operation
}

func (b *builder) skip(d *load.Document, p string, c SkipCategory, reason string) {
	b.skipped = append(b.skipped, Skipped{Path: p, File: d.Path, Reason: reason, Category: c})
}

func (b *builder) doc(d *load.Document) {
	if d.Swagger.Paths == nil {
		return
	}
	for _, swaggerPath := range load.SortedKeys(d.Swagger.Paths.Paths) {
		item := d.Swagger.Paths.Paths[swaggerPath]
		origin := load.Origin{File: d.Path, Pointer: "/paths/" + strings.ReplaceAll(strings.ReplaceAll(swaggerPath, "~", "~0"), "/", "~1")}
		ops := b.operations(d, origin, &item)
		for _, x := range b.expandTypeParams(origin, &item, swaggerPath) {
			p := x.path
			pp, cat, reason := parse(p)
			if reason != "" {
				b.skip(d, p, cat, reason)
				continue
			}
			if why, ok := pseudoTypes[strings.ToLower(pp.provider+"/"+strings.Join(typeTokens(pp.tokens), "/"))]; ok && len(pp.tokens)%2 == 0 {
				b.skip(d, p, SkipNotAResource, why)
				continue
			}
			if len(pp.tokens)%2 == 0 && ops["PUT"] != nil && ops["GET"] != nil {
				if what := b.notObject(ops["PUT"].Body); what != "" {
					b.skip(d, p, SkipUnsupportedBody, "the PUT body is "+what+", not a JSON object: a spec cannot hold it")
					continue
				}
				b.resource(d, p, pp, ops, origin, &item)
				if len(x.values) > 0 {
					b.byType[strings.ToLower(pp.provider+"/"+strings.Join(typeTokens(pp.tokens), "/"))].PathValues = x.values
				}
				continue
			}
			b.rest = append(b.rest, pending{doc: d, path: p, p: pp, ops: ops})
		}
	}
}

// notObject says what a PUT body schema is when it is not a JSON object
// (a string, say), or "" for an object, a body that cannot be read (later
// stages report it) and no body at all.
func (b *builder) notObject(body *load.Schema) string {
	if body == nil {
		return ""
	}
	s, err := b.l.Deref(*body)
	if err != nil || len(s.Properties) > 0 || len(s.AllOf) > 0 {
		return ""
	}
	if s.Format == "file" || s.Format == "binary" {
		return "a file (format " + s.Format + ")" // Automation's runbook content: `type: object, format: file`
	}
	if len(s.Type) == 0 || s.Type.Contains("object") {
		return ""
	}
	return "of type " + strings.Join(s.Type, ", ")
}

// expanded is one concrete path of a swagger path, with the values given to
// its enum-typed type segments.
type expanded struct {
	path   string
	values map[string]string
}

// expandTypeParams returns the paths a swagger path stands for. A resource
// type segment that is a path parameter with an enum (DNS and Private DNS
// record sets: `…/privateDnsZones/{zone}/{recordType}/{name}`, recordType
// one of A, AAAA, CNAME…) stands for one resource type per value — ARM's
// own types are Microsoft.Network/privateDnsZones/A and so on —, so the path
// becomes one path per value with the segment written out. Every other path
// is returned as it is (a type segment without an enum is skipped later as
// a generic path).
func (b *builder) expandTypeParams(origin load.Origin, item *spec.PathItem, p string) []expanded {
	out := []expanded{{path: p}}
	lower := strings.ToLower(p)
	i := strings.LastIndex(lower, "/providers/")
	if i < 0 {
		return out
	}
	rest := strings.Split(strings.Trim(p[i+len("/providers/"):], "/"), "/")
	for j := 1; j < len(rest); j += 2 {
		if !isParam(rest[j]) {
			continue
		}
		name := strings.Trim(rest[j], "{}")
		values := b.pathEnum(origin, item, name)
		if len(values) == 0 {
			return []expanded{{path: p}}
		}
		var next []expanded
		for _, x := range out {
			for _, v := range values {
				segs := strings.Split(strings.Trim(x.path[i+len("/providers/"):], "/"), "/")
				segs[j] = v
				vals := map[string]string{name: v}
				for k, w := range x.values {
					vals[k] = w
				}
				next = append(next, expanded{path: x.path[:i] + "/providers/" + strings.Join(segs, "/"), values: vals})
			}
		}
		out = next
	}
	return out
}

// pathEnum returns the string enum of a path parameter, from the path item
// or any of its operations, or nil.
func (b *builder) pathEnum(origin load.Origin, item *spec.PathItem, name string) []string {
	all := append([]spec.Parameter{}, item.Parameters...)
	for _, op := range []*spec.Operation{item.Put, item.Get, item.Patch, item.Delete, item.Post} {
		if op != nil {
			all = append(all, op.Parameters...)
		}
	}
	for i := range all {
		prm, err := b.l.Param(origin, &all[i])
		if err != nil || prm.In != "path" || prm.Name != name || len(prm.Enum) == 0 {
			continue
		}
		var out []string
		for _, v := range prm.Enum {
			s, ok := v.(string)
			if !ok || s == "" || strings.ContainsAny(s, "/{}") {
				return nil
			}
			out = append(out, s)
		}
		sort.Strings(out)
		return out
	}
	return nil
}

func (b *builder) operations(d *load.Document, origin load.Origin, item *spec.PathItem) map[string]*Operation {
	ops := map[string]*Operation{}
	add := func(method string, op *spec.Operation) {
		if op == nil {
			return
		}
		o := &Operation{Method: method, ID: op.ID, Origin: origin.Child(strings.ToLower(method))}
		o.LongRunning = load.ExtBool(op.Extensions, "x-ms-long-running-operation")
		if opts := load.ExtMap(op.Extensions, "x-ms-long-running-operation-options"); opts != nil {
			o.FinalStateVia, _ = opts["final-state-via"].(string)
		}
		for i := range op.Parameters {
			prm, err := b.l.Param(o.Origin.Child("parameters", fmt.Sprint(i)), &op.Parameters[i])
			if err != nil {
				b.errs = append(b.errs, err)
				continue
			}
			if s, ok := prm.BodySchema(); ok {
				o.Body = &s
				o.BodyParam = prm.Name
				o.BodyRequired = prm.Required
			}
			if prm.In == "query" && prm.Name != "api-version" {
				o.Query = append(o.Query, prm)
			}
		}
		if op.Responses != nil {
			for _, code := range []int{200, 201} {
				if r, ok := op.Responses.StatusCodeResponses[code]; ok && r.Schema != nil {
					o.Response = &load.Schema{Schema: r.Schema, Origin: o.Origin.Child("responses", fmt.Sprint(code), "schema")}
					break
				}
			}
		}
		if ex := load.ExtMap(op.Extensions, "x-ms-examples"); ex != nil {
			o.Examples = map[string]string{}
			for title, v := range ex {
				m, _ := v.(map[string]any)
				if ref, _ := m["$ref"].(string); ref != "" {
					o.Examples[title] = path.Clean(path.Join(path.Dir(d.Path), ref))
				}
			}
		}
		ops[method] = o
	}
	add("GET", item.Get)
	add("PUT", item.Put)
	add("PATCH", item.Patch)
	add("DELETE", item.Delete)
	add("POST", item.Post)
	return ops
}

func typeTokens(tokens []string) []string {
	var out []string
	for i := 0; i < len(tokens); i += 2 {
		out = append(out, tokens[i])
	}
	return out
}

func isParam(s string) bool { return strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") }

// parse splits an ARM path; a non-empty reason (with its category) means it
// is not a typed path.
func parse(p string) (parsed, SkipCategory, string) {
	p = strings.TrimSuffix(p, "/")
	lower := strings.ToLower(p)
	i := strings.LastIndex(lower, "/providers/")
	if i < 0 {
		segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
		if len(segs) == 4 && strings.EqualFold(segs[0], "subscriptions") && strings.EqualFold(segs[2], "resourceGroups") && isParam(segs[1]) && isParam(segs[3]) {
			return parsed{scope: ScopeSubscription, provider: "Microsoft.Resources", tokens: []string{"resourceGroups", segs[3]}}, "", ""
		}
		if len(segs) == 3 && strings.EqualFold(segs[0], "subscriptions") && strings.EqualFold(segs[2], "resourceGroups") && isParam(segs[1]) {
			// The resource groups of a subscription: their list.
			return parsed{scope: ScopeSubscription, provider: "Microsoft.Resources", tokens: []string{"resourceGroups"}}, "", ""
		}
		if len(segs) == 1 && isParam(segs[0]) {
			return parsed{}, SkipGenericPath, "generic resource path: any resource by its ARM id, not a resource type"
		}
		return parsed{}, SkipNotAResource, "not below /providers/: not a resource type"
	}
	prefix, rest := p[:i], strings.Split(p[i+len("/providers/"):], "/")
	var scope Scope
	ps := strings.Split(strings.TrimPrefix(prefix, "/"), "/")
	switch {
	case prefix == "":
		scope = ScopeTenant
	case len(ps) == 2 && strings.EqualFold(ps[0], "subscriptions") && isParam(ps[1]):
		scope = ScopeSubscription
	case len(ps) == 4 && strings.EqualFold(ps[0], "subscriptions") && strings.EqualFold(ps[2], "resourceGroups") && isParam(ps[1]) && isParam(ps[3]):
		scope = ScopeResourceGroup
	case len(ps) == 4 && strings.EqualFold(ps[0], "providers") && strings.EqualFold(ps[1], "Microsoft.Management") && strings.EqualFold(ps[2], "managementGroups"):
		scope = ScopeManagementGroup
	case len(ps) == 1 && isParam(ps[0]):
		scope = ScopeExtension
	default:
		return parsed{}, SkipUnsupportedScope, "unsupported scope prefix " + prefix
	}
	if len(rest) < 1 || isParam(rest[0]) {
		return parsed{}, SkipGenericPath, "generic resource path: the provider namespace is a parameter"
	}
	tokens := rest[1:]
	for j := 0; j < len(tokens); j += 2 {
		if isParam(tokens[j]) {
			return parsed{}, SkipGenericPath, "generic resource path: a resource type segment is a parameter"
		}
	}
	return parsed{scope: scope, provider: rest[0], tokens: tokens}, "", ""
}

func (b *builder) resource(d *load.Document, p string, pp parsed, ops map[string]*Operation, origin load.Origin, item *spec.PathItem) {
	types := typeTokens(pp.tokens)
	armType := pp.provider + "/" + strings.Join(types, "/")
	r := &Resource{
		ARMType:    armType,
		Provider:   pp.provider,
		Types:      types,
		APIVersion: d.APIVersion(),
		File:       d.Path,
		Path:       p,
		Scope:      pp.scope,
		Ops:        map[string]*Operation{},
	}
	for m, op := range ops {
		if m != "POST" {
			r.Ops[m] = op
		}
	}
	if patch := r.Ops["PATCH"]; patch != nil && patch.Body != nil {
		if props, err := b.l.Properties(*patch.Body); err == nil {
			r.PatchTagsOnly = len(props) > 0
			for _, p := range props {
				r.PatchTagsOnly = r.PatchTagsOnly && p.Name == "tags"
			}
		}
	}
	name := pp.tokens[len(pp.tokens)-1]
	if isParam(name) {
		r.NameParam = strings.Trim(name, "{}")
		prms := b.nameParams(origin, item, r.NameParam)
		for _, prm := range prms {
			if r.Singleton == "" {
				r.Singleton = singleValue(prm)
			}
		}
		if len(prms) > 0 {
			// The PUT's declaration overrides the path's.
			r.Name = nameRule(prms[len(prms)-1])
		}
	} else {
		r.Singleton = name
	}
	switch {
	case len(types) > 1:
		r.Owner = pp.provider + "/" + strings.Join(types[:len(types)-1], "/")
	case strings.EqualFold(armType, ResourceGroupType):
		r.Owner = SubscriptionType
	case pp.scope == ScopeResourceGroup:
		r.Owner = ResourceGroupType
	case pp.scope == ScopeSubscription:
		r.Owner = SubscriptionType
	case pp.scope == ScopeManagementGroup:
		r.Owner = ManagementGroupType
	}
	key := strings.ToLower(armType)
	if old, ok := b.byType[key]; ok {
		keep, drop := old, r
		if scopeRank[r.Scope] < scopeRank[old.Scope] {
			keep, drop = r, old
		}
		b.byType[key] = keep
		b.dropped = append(b.dropped, drop)
		return
	}
	b.byType[key] = r
}

// nameParams returns the declarations of the name path parameter of a
// resource path, with their `$ref`s resolved: the path's, then its PUT's.
func (b *builder) nameParams(origin load.Origin, item *spec.PathItem, name string) []load.Parameter {
	var all []spec.Parameter
	all = append(all, item.Parameters...)
	if item.Put != nil {
		all = append(all, item.Put.Parameters...)
	}
	var out []load.Parameter
	for i := range all {
		prm, err := b.l.Param(origin, &all[i])
		if err == nil && prm.In == "path" && prm.Name == name {
			out = append(out, prm)
		}
	}
	return out
}

// singleValue returns the only value of a parameter's enum, or "".
func singleValue(prm load.Parameter) string {
	if len(prm.Enum) == 1 {
		if s, ok := prm.Enum[0].(string); ok {
			return s
		}
	}
	return ""
}

// nameRule returns the pattern and lengths of a name parameter, or nil
// when it declares none.
func nameRule(prm load.Parameter) *NameRule {
	rule := &NameRule{Pattern: prm.Pattern, Origin: prm.Origin}
	if prm.MinLength != nil {
		rule.MinLength = int(*prm.MinLength)
	}
	if prm.MaxLength != nil {
		rule.MaxLength = int(*prm.MaxLength)
	}
	if rule.Pattern == "" && rule.MinLength == 0 && rule.MaxLength == 0 {
		return nil
	}
	return rule
}

// attach gives every pending path to the resource whose path is its longest
// prefix, or reports it as skipped.
func (b *builder) attach() {
	for _, d := range b.dropped {
		keep := b.byType[strings.ToLower(d.ARMType)]
		b.skip(&load.Document{Path: d.File}, d.Path, SkipDuplicate, fmt.Sprintf("%s is also served at %s scope (%s); one kind is generated, for that scope", d.ARMType, keep.Scope, keep.Path))
	}
	for _, pd := range b.rest {
		owner, suffix := b.longestPrefix(pd.p, b.resources())
		if owner == nil {
			if variant, _ := b.longestPrefix(pd.p, b.dropped); variant != nil {
				b.skip(pd.doc, pd.path, SkipDuplicate, fmt.Sprintf("belongs to %s at %s scope, which is not generated", variant.ARMType, variant.Scope))
				continue
			}
		}
		for _, m := range load.SortedKeys(pd.ops) {
			op := pd.ops[m]
			switch {
			case owner != nil && m == "POST":
				owner.Actions = append(owner.Actions, &Action{Name: suffix, Path: pd.path, Op: op})
			case owner != nil && m == "GET" && len(pd.p.tokens)%2 == 1 && b.isList(op):
				if child := b.byType[strings.ToLower(owner.ARMType+"/"+suffix)]; child != nil {
					child.ListPaths = append(child.ListPaths, pd.path)
				} else {
					b.skip(pd.doc, pd.path, SkipListOnly, "GET lists "+suffix+", which is not a resource type with PUT")
				}
			case owner != nil && m == "GET" && !b.isList(op) && requiredQuery(op) != "":
				// CheckIPAddressAvailability?ipAddress=…: a question about a
				// value, not a read of the resource's status.
				b.skip(pd.doc, pd.path, belowCategory(pd), "GET below "+owner.ARMType+" needs the query parameter "+requiredQuery(op)+": a question, not a status read")
			case owner != nil && m == "GET" && !b.isList(op) && !strings.Contains(suffix, "{") && b.credentialRead(suffix, op) != "":
				// Status never holds credentials (secrets.go).
				b.skip(pd.doc, pd.path, SkipSecretRead, "GET below "+owner.ARMType+" is not joined into status: "+b.credentialRead(suffix, op))
			case owner != nil && m == "GET" && !b.isList(op) && !strings.Contains(suffix, "{"):
				owner.StatusGETs = append(owner.StatusGETs, &Action{Name: suffix, Path: pd.path, Op: op})
			case owner == nil && m == "GET" && len(pd.p.tokens)%2 == 1 && b.isList(op):
				if r := b.byType[strings.ToLower(pd.p.provider+"/"+strings.Join(typeTokens(pd.p.tokens), "/"))]; r != nil {
					r.ListPaths = append(r.ListPaths, pd.path)
				} else {
					b.skip(pd.doc, pd.path, SkipListOnly, "list of a type that has no PUT")
				}
			case len(pd.p.tokens)%2 == 0 && pd.ops["PUT"] != nil:
				b.skip(pd.doc, pd.path, SkipNoGET, "PUT without GET: not a resource that can be observed")
			case len(pd.p.tokens)%2 == 0 && pd.ops["GET"] != nil && owner == nil:
				b.skip(pd.doc, pd.path, SkipNoPUT, "no PUT: read-only resource type")
			case owner == nil && m == "POST":
				b.skip(pd.doc, pd.path, SkipActionOnly, m+" outside any resource type (provider-level operation)")
			case owner == nil:
				b.skip(pd.doc, pd.path, SkipProviderLevel, m+" outside any resource type (provider-level operation)")
			default:
				b.skip(pd.doc, pd.path, belowCategory(pd), m+" below "+owner.ARMType+" is neither an action, a status read nor a list")
			}
		}
	}
	for _, r := range b.byType {
		sort.Slice(r.Actions, func(i, j int) bool { return r.Actions[i].Name < r.Actions[j].Name })
		sort.Slice(r.StatusGETs, func(i, j int) bool { return r.StatusGETs[i].Name < r.StatusGETs[j].Name })
		sort.Strings(r.ListPaths)
	}
}

// isList reports a pageable GET, or one whose response has a `value` array.
func (b *builder) isList(op *Operation) bool {
	if op.Response == nil {
		return false
	}
	s, err := b.l.Deref(*op.Response)
	if err != nil {
		return false
	}
	if s.Type.Contains("array") {
		return true
	}
	ps, err := b.l.Properties(s)
	if err != nil {
		return false
	}
	for _, p := range ps {
		if p.Name == "value" && p.Schema.Type.Contains("array") {
			return true
		}
	}
	return false
}

// longestPrefix finds the resource whose path (with parameters and case
// normalised) is the longest prefix of p, and the remaining suffix.
func (b *builder) longestPrefix(p parsed, candidates []*Resource) (*Resource, string) {
	norm := func(tokens []string) []string {
		out := make([]string, len(tokens))
		for i, t := range tokens {
			if isParam(t) {
				out[i] = "{}"
			} else {
				out[i] = strings.ToLower(t)
			}
		}
		return out
	}
	want := norm(p.tokens)
	var best *Resource
	bestLen := 0
	for _, r := range candidates {
		if r.Scope != p.scope || !strings.EqualFold(r.Provider, p.provider) {
			continue
		}
		rp, _, _ := parse(r.Path)
		have := norm(rp.tokens)
		if len(have) >= len(want) || len(have) <= bestLen {
			continue
		}
		match := true
		for i := range have {
			if have[i] != want[i] && !(have[i] == "{}" || want[i] == "{}") {
				match = false
				break
			}
		}
		if match {
			best, bestLen = r, len(have)
		}
	}
	if best == nil {
		return nil, ""
	}
	return best, strings.Join(p.tokens[bestLen:], "/")
}

// resources returns the kept resources in a stable order.
func (b *builder) resources() []*Resource {
	out := make([]*Resource, 0, len(b.byType))
	for _, k := range load.SortedKeys(b.byType) {
		out = append(out, b.byType[k])
	}
	return out
}

// requiredQuery names the first required query parameter of an operation
// (api-version aside), or "".
func requiredQuery(op *Operation) string {
	for _, q := range op.Query {
		if q.Required {
			return q.Name
		}
	}
	return ""
}
