package reconciler

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// DeleteStep is one object of a DeleteOrder wave and what its DELETE
// waits for.
type DeleteStep struct {
	Kind, Name string
	// WaitsFor are the objects of the set ("Kind name") that go before
	// it: they reference it, read it through valuesFrom, or it owns them.
	WaitsFor []string
}

// DeleteOrder is the order in which the operator sends the ARM DELETEs of
// objects deleted together (kubectl delete -f, a namespace), as
// finalize's dependents decide it: in waves, each object after the objects
// of the set that reference it (…Ref), read it (valuesFrom) or that it
// owns (spec.owner). The objects of a wave are deleted at the same time.
// describe gives a kind's Descriptor (nil: not a generated kind, whose
// references are not known). Objects in a cycle never go: an error names
// them.
func DeleteOrder(objs []*unstructured.Unstructured, describe func(schema.GroupVersionKind) *descriptor.Descriptor) ([][]DeleteStep, error) {
	type node struct {
		kind, name string
		before     map[string]bool // keys of the objects that go first
	}
	nodes := map[string]*node{}
	key := func(kind, name string) string { return strings.ToLower(kind) + "/" + name }
	for _, u := range objs {
		nodes[key(u.GetKind(), u.GetName())] = &node{kind: u.GetKind(), name: u.GetName(), before: map[string]bool{}}
	}
	holds := func(target, dependent string) {
		if n, ok := nodes[target]; ok && target != dependent {
			n.before[dependent] = true
		}
	}
	for _, u := range objs {
		self := key(u.GetKind(), u.GetName())
		d := describe(u.GroupVersionKind())
		if d != nil {
			for _, o := range specRefs(d.References, spec(u)) {
				holds(o.key(), self)
			}
		}
		for _, src := range valueSources(u) {
			holds(src, self)
		}
		_, kind, name := specOwner(u)
		if kind == "" && d != nil {
			kind = d.OwnerKind
		}
		if kind != "" && name != "" {
			holds(key(kind, name), self)
		}
	}
	var waves [][]DeleteStep
	gone := map[string]bool{}
	for len(gone) < len(nodes) {
		var wave []string
		for k, n := range nodes {
			if gone[k] {
				continue
			}
			ready := true
			for b := range n.before {
				if !gone[b] {
					ready = false
					break
				}
			}
			if ready {
				wave = append(wave, k)
			}
		}
		if len(wave) == 0 {
			var stuck []string
			for k, n := range nodes {
				if !gone[k] {
					stuck = append(stuck, n.kind+" "+n.name)
				}
			}
			slices.Sort(stuck)
			return waves, fmt.Errorf("a cycle: %s wait for one another; their DELETEs are never sent (break the cycle: remove a reference)", strings.Join(stuck, ", "))
		}
		slices.Sort(wave)
		steps := make([]DeleteStep, 0, len(wave))
		for _, k := range wave {
			n := nodes[k]
			var waits []string
			for b := range n.before {
				waits = append(waits, nodes[b].kind+" "+nodes[b].name)
			}
			slices.Sort(waits)
			steps = append(steps, DeleteStep{Kind: n.kind, Name: n.name, WaitsFor: waits})
		}
		for _, k := range wave {
			gone[k] = true
		}
		waves = append(waves, steps)
	}
	return waves, nil
}
