package emit

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

var classConst = map[string]string{
	"writable":   "Writable",
	"createOnly": "CreateOnly",
	"readOnly":   "ReadOnly",
	"writeOnly":  "WriteOnly",
	"secret":     "Secret",
}

var scopeConst = map[tree.Scope]string{
	tree.ScopeResourceGroup:   "ScopeResourceGroup",
	tree.ScopeSubscription:    "ScopeSubscription",
	tree.ScopeManagementGroup: "ScopeManagementGroup",
	tree.ScopeTenant:          "ScopeTenant",
	tree.ScopeExtension:       "ScopeExtension",
}

// descriptorFile declares one Descriptor per kind and Descriptors().
func descriptorFile(p *model.Package, importPath string) *jen.File {
	f := newFile(p, importPath)
	var list []jen.Code
	for _, k := range p.Kinds {
		name := k.Name + "Descriptor"
		f.Comment(name + " describes " + k.Name + " to the reconciler, the webhook and the ARM emulator.")
		f.Var().Id(name).Op("=").Qual(pathDescriptors, "Descriptor").Values(descriptorValues(k))
		list = append(list, jen.Op("&").Id(name))
	}
	defaultsFunc(f, p)
	f.Comment("Descriptors returns the descriptor of every kind in this package.")
	f.Func().Id("Descriptors").Params().Index().Op("*").Qual(pathDescriptors, "Descriptor").Block(
		jen.Return(jen.Index().Op("*").Qual(pathDescriptors, "Descriptor").ValuesFunc(func(g *jen.Group) {
			for _, c := range list {
				g.Line().Add(c)
			}
			if len(list) > 0 {
				g.Line()
			}
		})),
	)
	return f
}

// descriptorValues are the fields of k's runtime/descriptor.Descriptor
// literal; fields at their zero value are left out.
func descriptorValues(k *model.Kind) jen.Dict {
	r := k.Resource
	d := jen.Dict{
		jen.Id("Group"):        jen.Lit(k.Package.Group),
		jen.Id("Version"):      jen.Lit(k.Package.Version),
		jen.Id("Kind"):         jen.Lit(k.Name),
		jen.Id("ARMType"):      jen.Lit(r.ARMType),
		jen.Id("APIVersion"):   jen.Lit(r.APIVersion),
		jen.Id("PathTemplate"): jen.Lit(r.Path),
		jen.Id("Scope"):        jen.Qual(pathDescriptors, scopeConst[r.Scope]),
		jen.Id("Verbs"):        strs(r.Verbs()),
	}
	if len(k.Versions) > 1 {
		d[jen.Id("Versions")] = strs(k.Versions)
		d[jen.Id("StorageVersion")] = jen.Lit(k.StorageVersion)
	}
	if r.PatchTagsOnly {
		d[jen.Id("PatchTagsOnly")] = jen.True()
	}
	if put := r.Ops["PUT"]; put != nil && put.Body == nil {
		d[jen.Id("PutWithoutBody")] = jen.True()
	}
	nameValues(d, r)
	ownerValues(d, k)
	if lro := longRunning(r); lro != nil {
		d[jen.Id("LongRunning")] = lro
	}
	required := map[string]bool{}
	for _, p := range k.RequiredPaths() {
		required[p.String()] = true
	}
	d[jen.Id("Properties")] = properties(belowOpen(k.Table.Entries, k.OpenPaths()), required)
	pathValues(d, k)
	return d
}

// nameValues adds the name's parameter and constraints, or the singleton
// name, to d.
func nameValues(d jen.Dict, r *tree.Resource) {
	if r.NameParam != "" {
		d[jen.Id("NameParameter")] = jen.Lit(r.NameParam)
	}
	if n := r.Name; n != nil && r.Singleton == "" {
		if n.Pattern != "" {
			d[jen.Id("NamePattern")] = jen.Lit(n.Pattern)
		}
		if n.MinLength > 0 {
			d[jen.Id("NameMinLength")] = jen.Lit(n.MinLength)
		}
		if n.MaxLength > 0 {
			d[jen.Id("NameMaxLength")] = jen.Lit(n.MaxLength)
		}
	}
	if r.Singleton != "" {
		d[jen.Id("Singleton")] = jen.Lit(r.Singleton)
	}
}

// ownerValues adds the owner's ARM type and kind to d.
func ownerValues(d jen.Dict, k *model.Kind) {
	if r := k.Resource; r.Owner != "" {
		d[jen.Id("OwnerARMType")] = jen.Lit(r.Owner)
	}
	if k.Owner != nil {
		d[jen.Id("OwnerGroup")] = jen.Lit(k.Owner.Package.Group)
		d[jen.Id("OwnerKind")] = jen.Lit(k.Owner.Name)
	}
}

// longRunning is the LongRunning literal of r's long-running verbs, nil
// when there are none.
func longRunning(r *tree.Resource) jen.Code {
	lro := r.LongRunning()
	if len(lro) == 0 {
		return nil
	}
	return jen.Index().Qual(pathDescriptors, "LRO").ValuesFunc(func(g *jen.Group) {
		for _, v := range lro {
			vals := jen.Dict{jen.Id("Verb"): jen.Lit(v)}
			if fsv := r.Ops[v].FinalStateVia; fsv != "" {
				vals[jen.Id("FinalStateVia")] = jen.Lit(fsv)
			}
			g.Values(vals)
		}
	})
}

// properties is the Properties literal of a kind's property table.
func properties(entries []classify.Entry, required map[string]bool) jen.Code {
	return jen.Index().Qual(pathDescriptors, "Property").ValuesFunc(func(g *jen.Group) {
		for _, e := range tableEntries(entries) {
			vals := jen.Dict{
				jen.Id("Path"):  pathLit(e.Path),
				jen.Id("Class"): jen.Qual(pathDescriptors, classConst[string(e.Class)]),
				jen.Id("Rule"):  jen.Lit(e.Rule),
			}
			if e.Type != "" {
				vals[jen.Id("Type")] = jen.Lit(e.Type)
			}
			if required[e.Path.String()] {
				vals[jen.Id("Required")] = jen.True()
			}
			g.Line().Values(vals)
		}
		if len(entries) > 0 {
			g.Line()
		}
	})
}

// pathValues adds to d what the runtime finds at paths of the body or of
// the resource: secret paths, list paths, actions, server defaults, status
// GETs and embedded children.
func pathValues(d jen.Dict, k *model.Kind) {
	r := k.Resource
	if len(k.SecretPaths) > 0 {
		d[jen.Id("SecretPaths")] = jen.Index().Qual(pathDescriptors, "Path").ValuesFunc(func(g *jen.Group) {
			for _, p := range k.SecretPaths {
				g.Add(pathLit(p))
			}
		})
	}
	if len(r.ListPaths) > 0 {
		d[jen.Id("ListPaths")] = strs(r.ListPaths)
	}
	if acts := postActions(k.Actions); acts != nil {
		d[jen.Id("Actions")] = acts
	}
	if len(k.ServerDefaults) > 0 {
		d[jen.Id("ServerDefaults")] = jen.Index().Qual(pathDescriptors, "ServerDefault").ValuesFunc(func(g *jen.Group) {
			for _, sd := range k.ServerDefaults {
				g.Line().Values(jen.Dict{jen.Id("Path"): pathLit(sd.Path), jen.Id("JSON"): jen.Lit(sd.JSON)})
			}
			g.Line()
		})
	}
	if len(k.NameDerived) > 0 {
		d[jen.Id("NameDerived")] = jen.Index().Qual(pathDescriptors, "ServerDefault").ValuesFunc(func(g *jen.Group) {
			for _, sd := range k.NameDerived {
				g.Line().Values(jen.Dict{jen.Id("Path"): pathLit(sd.Path), jen.Id("JSON"): jen.Lit(sd.JSON)})
			}
			g.Line()
		})
	}
	if acts := actions(r.StatusGETs); acts != nil {
		d[jen.Id("StatusGETs")] = acts
	}
	if len(k.References) > 0 {
		d[jen.Id("References")] = jen.Index().Qual(pathDescriptors, "Reference").ValuesFunc(func(g *jen.Group) {
			for _, ref := range k.References {
				vals := jen.Dict{jen.Id("Path"): pathLit(ref.Path)}
				if ref.Map {
					vals[jen.Id("Map")] = jen.True()
				}
				if ref.Required {
					vals[jen.Id("Required")] = jen.True()
				}
				if len(ref.Targets) > 0 {
					vals[jen.Id("Targets")] = strs(ref.Targets)
				}
				g.Line().Values(vals)
			}
			g.Line()
		})
	}
	if len(r.Embedded) > 0 {
		d[jen.Id("EmbeddedChildren")] = jen.Index().Qual(pathDescriptors, "EmbeddedChild").ValuesFunc(func(g *jen.Group) {
			for _, e := range r.Embedded {
				g.Line().Values(jen.Dict{jen.Id("Path"): pathLit(e.Path), jen.Id("ARMType"): jen.Lit(e.ARMType)})
			}
			g.Line()
		})
	}
}

func actions(as []*tree.Action) jen.Code {
	if len(as) == 0 {
		return nil
	}
	return jen.Index().Qual(pathDescriptors, "Action").ValuesFunc(func(g *jen.Group) {
		for _, a := range as {
			vals := jen.Dict{jen.Id("Name"): jen.Lit(a.Name), jen.Id("Path"): jen.Lit(a.Path)}
			if a.Op.LongRunning {
				vals[jen.Id("LongRunning")] = jen.True()
			}
			if !strings.Contains(a.Name, "{") {
				vals[jen.Id("StatusField")] = jen.Lit(model.StatusGETField(a.Name))
			}
			g.Line().Values(vals)
		}
		g.Line()
	})
}

// postActions declares the POST actions with their query parameters and
// flattened bodies.
func postActions(as []descriptor.Action) jen.Code {
	if len(as) == 0 {
		return nil
	}
	return jen.Index().Qual(pathDescriptors, "Action").ValuesFunc(func(g *jen.Group) {
		for _, a := range as {
			vals := jen.Dict{jen.Id("Name"): jen.Lit(a.Name), jen.Id("Path"): jen.Lit(a.Path)}
			if a.LongRunning {
				vals[jen.Id("LongRunning")] = jen.True()
			}
			if a.FinalStateVia != "" {
				vals[jen.Id("FinalStateVia")] = jen.Lit(a.FinalStateVia)
			}
			if len(a.Query) > 0 {
				vals[jen.Id("Query")] = fieldList(a.Query)
			}
			if a.Request != nil {
				vals[jen.Id("Request")] = body(a.Request)
			}
			if a.Response != nil {
				vals[jen.Id("Response")] = body(a.Response)
			}
			g.Line().Values(vals)
		}
		g.Line()
	})
}

func body(b *descriptor.Body) jen.Code {
	vals := jen.Dict{jen.Id("Schema"): jen.Lit(b.Schema), jen.Id("Fields"): fieldList(b.Fields)}
	if b.Required {
		vals[jen.Id("Required")] = jen.True()
	}
	return jen.Op("&").Qual(pathDescriptors, "Body").Values(vals)
}

// fieldList declares fields one a line, leaving zero values out.
func fieldList(fs []descriptor.Field) jen.Code {
	return jen.Index().Qual(pathDescriptors, "Field").ValuesFunc(func(g *jen.Group) {
		for _, f := range fs {
			vals := jen.Dict{}
			if len(f.Path) > 0 {
				vals[jen.Id("Path")] = pathLit(f.Path)
			}
			if f.Type != "" {
				vals[jen.Id("Type")] = jen.Lit(f.Type)
			}
			if f.Format != "" {
				vals[jen.Id("Format")] = jen.Lit(f.Format)
			}
			if len(f.Enum) > 0 {
				vals[jen.Id("Enum")] = strs(f.Enum)
			}
			for name, on := range map[string]bool{"Required": f.Required, "EnumOpen": f.EnumOpen, "Secret": f.Secret, "ReadOnly": f.ReadOnly, "Open": f.Open} {
				if on {
					vals[jen.Id(name)] = jen.True()
				}
			}
			g.Line().Values(vals)
		}
		g.Line()
	})
}

// pathLit declares a descriptor.Path literal: its segments, with the wildcards
// by their names.
func pathLit(p descriptor.Path) *jen.Statement {
	return jen.Qual(pathDescriptors, "Path").ValuesFunc(func(g *jen.Group) {
		for _, s := range p {
			switch s {
			case descriptor.Items:
				g.Qual(pathDescriptors, "Items")
			case descriptor.Values:
				g.Qual(pathDescriptors, "Values")
			default:
				g.Lit(s)
			}
		}
	})
}

func strs(v []string) *jen.Statement {
	return jen.Index().String().ValuesFunc(func(g *jen.Group) {
		for _, s := range v {
			g.Lit(s)
		}
	})
}

// ImportPath joins a module path and a slash path.
func ImportPath(module, rel string) string {
	return strings.TrimSuffix(module, "/") + "/" + strings.Trim(rel, "/")
}

// defaultsFunc declares DefaultsFor: the configured defaults of a kind
// (specs/armature.yaml overrides with default:), spec property path → JSON,
// for the defaulting webhook. runtime/descriptor has no field for them yet.
func defaultsFunc(f *jen.File, p *model.Package) {
	f.Comment("DefaultsFor returns the configured defaults of a kind of this package: spec")
	f.Comment("property paths (as in the Descriptor) to JSON values, which the defaulting")
	f.Comment("webhook sets where a spec leaves them out. It returns nil for a kind without")
	f.Comment("defaults. Each call returns a new map.")
	f.Func().Id("DefaultsFor").Params(jen.Id("kind").String()).Map(jen.String()).String().BlockFunc(func(g *jen.Group) {
		var cases []jen.Code
		for _, k := range p.Kinds {
			if len(k.Defaults) == 0 {
				continue
			}
			cases = append(cases, jen.Case(jen.Lit(k.Name)).Block(jen.Return(jen.Map(jen.String()).String().Values(jen.DictFunc(func(d jen.Dict) {
				for _, def := range k.Defaults {
					d[jen.Lit(def.Path.String())] = jen.Lit(def.JSON)
				}
			})))))
		}
		if len(cases) > 0 {
			g.Switch(jen.Id("kind")).Block(cases...)
		}
		g.Return(jen.Nil())
	})
}

// belowOpen leaves out the entries below the spec's free-form JSON fields
// (model.Kind.OpenPaths): the CRD accepts anything there, and so must the
// Descriptor's walks (the webhook, the reconciler, the emulator) — a
// polymorphic value's table held one variant's members only.
func belowOpen(entries []classify.Entry, open []descriptor.Path) []classify.Entry {
	if len(open) == 0 {
		return entries
	}
	out := make([]classify.Entry, 0, len(entries))
	for _, e := range entries {
		if !slices.ContainsFunc(open, func(p descriptor.Path) bool { return e.Path.Under(p) }) {
			out = append(out, e)
		}
	}
	return out
}

// tableEntries are the entries of a kind's property table that its
// Descriptor lists. A readOnly property stands for its whole subtree: every
// walk of the table (request cleaning, the diff, drift, import, the webhook)
// stops at it, so the paths below it that go through an array or a map are
// left out (those without, the emulator fills in its GET bodies). ARM embeds
// whole related resources read-only (a subnet's ipConfigurations hold NICs,
// which hold subnets…): Network's tables shrink from 48,000 entries to a few
// thousand.
func tableEntries(entries []classify.Entry) []classify.Entry {
	readOnly := map[string]bool{}
	for _, e := range entries {
		if e.Class == descriptor.ReadOnly {
			readOnly[e.Path.String()] = true
		}
	}
	below := func(p descriptor.Path) bool {
		if !slices.ContainsFunc(p, descriptor.IsWildcard) {
			return false
		}
		for i := len(p) - 1; i > 0; i-- {
			if readOnly[p[:i].String()] {
				return true
			}
		}
		return false
	}
	out := make([]classify.Entry, 0, len(entries))
	for _, e := range entries {
		if !below(e.Path) {
			out = append(out, e)
		}
	}
	return out
}
