package webhook

import (
	"sort"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// node is one segment of the property-class table of a Descriptor, as a
// tree whose root is the CR's spec. The summary flags let a walk skip every
// subtree that holds nothing it looks for.
type node struct {
	// class is the class of the path ending here, "" when the table has no
	// row for it (an intermediate object or an array's items).
	class descriptor.Class
	// children by segment: a property name, descriptor.Items or
	// descriptor.Values.
	children map[string]*node
	// order is the keys of children, sorted, so that walks and therefore
	// error lists are deterministic.
	order []string

	// createOnlyBelow, readOnlyBelow and secretBelow are true when this
	// node or a node below it has that class. secretBelow also covers
	// writeOnly: both are values that are never echoed.
	createOnlyBelow, readOnlyBelow, secretBelow bool
	// secretRef is true when the spec holds a Secret key reference here.
	secretRef bool
}

// buildTree turns the property-class table of d into a tree. Paths listed in
// d.SecretPaths hold Secret references whatever their class.
func buildTree(d *descriptor.Descriptor) *node {
	root := &node{}
	for _, p := range d.Properties {
		n := root.ensure(p.Path)
		n.class = p.Class
		if p.Class == descriptor.Secret {
			n.secretRef = true
		}
	}
	for _, p := range d.SecretPaths {
		root.ensure(p).secretRef = true
	}
	root.summarise()
	return root
}

// ensure returns the node at segs, creating the nodes on the way.
func (n *node) ensure(segs descriptor.Path) *node {
	for _, s := range segs {
		c := n.children[s]
		if c == nil {
			if n.children == nil {
				n.children = map[string]*node{}
			}
			c = &node{}
			n.children[s] = c
		}
		n = c
	}
	return n
}

// summarise fills order and the summary flags, bottom up.
func (n *node) summarise() {
	n.createOnlyBelow = n.class == descriptor.CreateOnly
	n.readOnlyBelow = n.class == descriptor.ReadOnly
	n.secretBelow = n.isSecret()
	n.order = make([]string, 0, len(n.children))
	for k, c := range n.children {
		c.summarise()
		n.order = append(n.order, k)
		n.createOnlyBelow = n.createOnlyBelow || c.createOnlyBelow
		n.readOnlyBelow = n.readOnlyBelow || c.readOnlyBelow
		n.secretBelow = n.secretBelow || c.secretBelow
	}
	sort.Strings(n.order)
}

// child returns the node for a property name or map key below n: the named
// child, else the map-values child, else nil (data the table does not
// describe). n may be nil.
func (n *node) child(key string) *node {
	if n == nil {
		return nil
	}
	if c, ok := n.children[key]; ok {
		return c
	}
	return n.children[descriptor.Values]
}

// items returns the node for the items of an array at n, or nil.
func (n *node) items() *node {
	if n == nil {
		return nil
	}
	return n.children[descriptor.Items]
}

// isSecret reports whether the value at n is a secret or write-only value,
// or a Secret reference. n may be nil.
func (n *node) isSecret() bool {
	return n != nil && (n.secretRef || n.class == descriptor.Secret || n.class == descriptor.WriteOnly)
}
