package tree

import (
	"sort"
	"strings"

	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Embedded is a collection of a resource's PUT body that ARM also serves as
// a child resource type: a virtual network's properties.subnets are its
// Microsoft.Network/virtualNetworks/subnets.
type Embedded struct {
	// Path is the array property from the body root.
	Path descriptor.Path
	// ARMType is the child's type.
	ARMType string
	// By says how the items were matched to the child: "schema" (the
	// items are the child's PUT body definition) or "name" (the property
	// is named as the child's type segment, and its items are objects).
	By string
}

// embeddedDepth is how deep below the body root a collection is looked
// for: `subnets` or `properties.subnets`.
const embeddedDepth = 2

// markEmbedded sets Resource.Embedded: for every child type of a resource,
// the array properties of the resource's PUT body, at the root or one
// object below it, whose items are the child's PUT body schema (the same
// definition once `$ref`s are followed) or that are named as the child's
// type segment with object items.
func (b *builder) markEmbedded() {
	for _, r := range b.resources() {
		put := r.Ops["PUT"]
		if put == nil || put.Body == nil {
			continue
		}
		for _, c := range b.resources() {
			if !strings.EqualFold(c.Owner, r.ARMType) || c.Ops["PUT"] == nil || c.Ops["PUT"].Body == nil {
				continue
			}
			child, err := b.l.Deref(*c.Ops["PUT"].Body)
			if err != nil {
				continue
			}
			seg := c.Types[len(c.Types)-1]
			b.findEmbedded(r, c, child, seg, *put.Body, nil, map[string]bool{})
		}
		sort.Slice(r.Embedded, func(i, j int) bool { return r.Embedded[i].Path.Compare(r.Embedded[j].Path) < 0 })
	}
}

// findEmbedded looks for the child's collection in the object schema s at
// path.
func (b *builder) findEmbedded(r, c *Resource, child load.Schema, seg string, s load.Schema, path descriptor.Path, seen map[string]bool) {
	if len(path) >= embeddedDepth {
		return
	}
	s, err := b.l.Deref(s)
	if err != nil || seen[s.Origin.String()] {
		return
	}
	seen[s.Origin.String()] = true
	props, err := b.l.Properties(s)
	if err != nil {
		return
	}
	for _, p := range props {
		if p.ReadOnly() {
			continue
		}
		at := path.Child(p.Name)
		if p.Schema.Type.Contains("array") && p.Schema.Items != nil && p.Schema.Items.Schema != nil {
			items, err := b.l.Deref(load.Schema{Schema: p.Schema.Items.Schema, Origin: p.Schema.Origin.Child("items")})
			if err != nil {
				continue
			}
			switch {
			case items.Origin == child.Origin:
				r.Embedded = append(r.Embedded, Embedded{Path: at, ARMType: c.ARMType, By: "schema"})
			case strings.EqualFold(p.Name, seg) && isObject(items):
				r.Embedded = append(r.Embedded, Embedded{Path: at, ARMType: c.ARMType, By: "name"})
			}
			continue
		}
		if isObject(p.Schema) {
			b.findEmbedded(r, c, child, seg, p.Schema, at, seen)
		}
	}
}

// isObject reports an object schema: typed object, or untyped with
// properties or allOf.
func isObject(s load.Schema) bool {
	return s.Type.Contains("object") || (len(s.Type) == 0 && (len(s.Properties) > 0 || len(s.AllOf) > 0))
}
