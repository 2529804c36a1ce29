package refs

import (
	"fmt"
	"strings"

	"github.com/go-openapi/spec"
	"github.com/gobuffalo/flect"

	"github.com/armature-dev/armature/generator/load"
)

// bodyTypes returns the ARM types whose PUT body is the definition s, from
// every document the loader has read (those a kind's file references too:
// networkInterface.json reaches virtualNetwork.json's Subnet), sorted. The
// types below own are left out: they are own's embedded children, never
// references.
func (f *Finder) bodyTypes(s load.Schema, own string) []string {
	f.index()
	var out []string
	for _, t := range f.bodies[s.Origin.String()] {
		if !under(t, own) {
			out = append(out, t)
		}
	}
	return dedupSorted(out)
}

// partTypes returns, for a definition that is a named part of other
// resource types' bodies (an item of an application gateway's
// properties.backendAddressPools, with an id and a name), the type of the
// part's ids: the owner's type and the collection
// (Microsoft.Network/applicationGateways/backendAddressPools), sorted. It
// returns nothing when the definition is a part of own or of a type below
// it: a kind's own parts are no references.
func (f *Finder) partTypes(s load.Schema, own string) []string {
	f.index()
	var out []string
	for _, p := range f.parts[s.Origin.String()] {
		if strings.EqualFold(p.owner, own) || under(p.owner, own) {
			return nil
		}
		out = append(out, p.owner+"/"+p.collection)
	}
	return dedupSorted(out)
}

// ownPart returns the collection of a kind's own body that a property name
// names — `probe` or `probes` for an application gateway's probes,
// `defaultBackendAddressPool` for its backendAddressPools — or "".
func (f *Finder) ownPart(name, own string) string {
	f.index()
	name = strings.TrimPrefix(name, "default")
	for _, key := range load.SortedKeys(f.parts) {
		for _, p := range f.parts[key] {
			if !strings.EqualFold(p.owner, own) {
				continue
			}
			c := strings.TrimSuffix(p.collection, "Collection")
			if strings.EqualFold(name, p.collection) || strings.EqualFold(name, c) || strings.EqualFold(flect.Pluralize(name), c) {
				return p.collection
			}
		}
	}
	return ""
}

// under reports an ARM type strictly below another.
func under(t, parent string) bool {
	return strings.HasPrefix(strings.ToLower(t), strings.ToLower(parent)+"/")
}

// part is a collection of named objects in a resource type's body.
type part struct{ owner, collection string }

// partDepth is how deep below a body root parts are looked for: `x` or
// `properties.x`, as tree looks for embedded children.
const partDepth = 2

func (f *Finder) index() {
	if f.bodies != nil {
		return
	}
	f.bodies = f.indexBodies()
	f.parts = map[string][]part{}
	for _, key := range load.SortedKeys(f.bodies) {
		def := f.defs[key]
		for _, t := range f.bodies[key] {
			f.indexParts(def, t, 0, map[string]bool{})
		}
	}
}

// indexParts records the named parts of a body: arrays whose items are a
// definition of the body's file with an id and a name.
func (f *Finder) indexParts(s load.Schema, owner string, depth int, seen map[string]bool) {
	if depth >= partDepth || seen[s.Origin.String()] {
		return
	}
	seen[s.Origin.String()] = true
	props, err := f.l.Properties(s)
	if err != nil {
		return
	}
	for _, p := range props {
		if p.ReadOnly() {
			continue
		}
		sc := p.Schema
		if sc.Type.Contains("array") && sc.Items != nil && sc.Items.Schema != nil {
			items, err := f.l.Deref(load.Schema{Schema: sc.Items.Schema, Origin: sc.Origin.Child("items")})
			// A part is the owner's when its definition is in the owner's
			// file: a subnet lists application gateway IP configurations,
			// which are the gateway's parts, not the subnet's.
			if err == nil && items.Name != "" && items.Origin.File == s.Origin.File && f.named(items) {
				key := items.Origin.String()
				f.parts[key] = append(f.parts[key], part{owner, p.Name})
			}
			continue
		}
		if isObject(sc) {
			f.indexParts(sc, owner, depth+1, seen)
		}
	}
}

// named reports an object with an id and a name.
func (f *Finder) named(s load.Schema) bool {
	props, err := f.l.Properties(s)
	if err != nil {
		return false
	}
	var id, name bool
	for _, p := range props {
		id = id || p.Name == "id"
		name = name || p.Name == "name"
	}
	return id && name
}

// indexBodies maps the origin of every PUT body definition of the loaded
// documents to the ARM types of the paths it is the body of.
func (f *Finder) indexBodies() map[string][]string {
	out := map[string][]string{}
	f.defs = map[string]load.Schema{}
	for _, d := range f.l.Documents() {
		if d.Swagger.Paths == nil {
			continue
		}
		for _, p := range load.SortedKeys(d.Swagger.Paths.Paths) {
			item := d.Swagger.Paths.Paths[p]
			armType := armTypeOf(p)
			if item.Put == nil || armType == "" {
				continue
			}
			at := load.Origin{File: d.Path}.Child("paths", p)
			if def, ok := f.bodyOrigin(at, item.Parameters, item.Put); ok {
				key := def.Origin.String()
				out[key] = append(out[key], armType)
				f.defs[key] = def
			}
		}
	}
	return out
}

// bodyOrigin is the definition a PUT's body parameter names.
func (f *Finder) bodyOrigin(at load.Origin, shared []spec.Parameter, put *spec.Operation) (load.Schema, bool) {
	params := append(append([]spec.Parameter(nil), shared...), put.Parameters...)
	for i := range params {
		from := at.Child("put", "parameters", fmt.Sprint(i))
		prm, err := f.l.Param(from, &params[i])
		if err != nil {
			continue
		}
		body, ok := prm.BodySchema()
		if !ok {
			continue
		}
		s, err := f.l.Deref(body)
		return s, err == nil && s.Name != ""
	}
	return load.Schema{}, false
}

// armTypeOf is the ARM type of an instance path
// (`…/providers/Microsoft.Network/virtualNetworks/{n}/subnets/{s}` →
// Microsoft.Network/virtualNetworks/subnets), or "" for a path that names
// no typed instance.
func armTypeOf(p string) string {
	i := strings.LastIndex(strings.ToLower(p), "/providers/")
	if i < 0 {
		return ""
	}
	segs := strings.Split(strings.Trim(p[i+len("/providers/"):], "/"), "/")
	if len(segs) < 3 || len(segs)%2 == 0 || param(segs[0]) {
		return ""
	}
	types := []string{segs[0]}
	for j := 1; j < len(segs); j += 2 {
		if param(segs[j]) {
			return ""
		}
		types = append(types, segs[j])
	}
	return strings.Join(types, "/")
}

func param(s string) bool { return strings.HasPrefix(s, "{") }
