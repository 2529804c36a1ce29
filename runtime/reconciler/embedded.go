package reconciler

import (
	"encoding/json"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// Embedded children (Descriptor.EmbeddedChildren) are collections of a
// parent's body that ARM also serves as child resources: a virtual
// network's properties.subnets are its Subnet resources. A PUT of the
// parent replaces the children with what the collection holds (Network
// deletes the subnets a virtual network PUT leaves out; docs/embedded.md),
// so a write of the parent must carry the children it does not mean to
// remove:
//
//   - a spec that does not set the collection leaves it out of a PATCH,
//     and a GET + PUT carries the live collection as it is;
//   - a write that changes the collection sends the live children merged
//     with the spec's by name (three-way, as kubectl apply merges lists
//     by key): the spec's items, then every live child the spec does not
//     name and the last-applied body did not name either. A child the
//     spec named and no longer names is removed; one created as its own
//     resource (a Subnet object, the portal) is kept;
//   - drift compares only the children the spec names, on the values it
//     sets: a live child the spec does not name is no drift.

// childName is the key of an embedded child: its name, without case (ARM
// compares names so).
func childName(v any) string {
	m, _ := v.(map[string]any)
	n, _ := m["name"].(string)
	return strings.ToLower(n)
}

// names returns the child names of a collection.
func names(items []any) map[string]bool {
	out := map[string]bool{}
	for _, it := range items {
		if n := childName(it); n != "" {
			out[n] = true
		}
	}
	return out
}

// mergeChildren returns the collection a write sends: the desired items,
// then the live items (readOnly values dropped) that neither desired nor
// last names.
func mergeChildren(d *descriptor.Descriptor, e descriptor.EmbeddedChild, live, last, desired []any) []any {
	out := append([]any{}, desired...)
	drop := names(desired)
	for n := range names(last) {
		drop[n] = true
	}
	for _, it := range live {
		if n := childName(it); n == "" || !drop[n] {
			out = append(out, settable(d, e.Path.Item(), it))
		}
	}
	return out
}

// keepChildren rewrites every embedded collection a merge patch sets
// (from the spec, or null because the spec no longer sets it) to the
// merged collection, which needs the live body: needLive is true when it
// is needed and live is nil. A patch that does not touch a collection is
// left as it is.
func keepChildren(d *descriptor.Descriptor, patch, desired map[string]any, lastApplied string, live map[string]any) (needLive bool) {
	var last map[string]any
	if lastApplied != "" {
		_ = json.Unmarshal([]byte(lastApplied), &last)
	}
	for _, e := range d.EmbeddedChildren {
		if _, touched := e.Path.Get(patch); !touched {
			continue
		}
		if live == nil {
			return true
		}
		items := func(body map[string]any) []any {
			v, _ := e.Path.Get(body)
			a, _ := v.([]any)
			return a
		}
		e.Path.Set(patch, mergeChildren(d, e, items(live), items(last), items(desired)))
	}
	return false
}

// driftChildren compares the children the spec names with the live ones
// of the same name, on the values the spec sets (walk compares two
// objects); a live child the spec does not name is no drift. It reports
// whether any differs or is missing.
func driftChildren(want, got []any, walk func(w, g map[string]any) bool) bool {
	byName := map[string]map[string]any{}
	for _, g := range got {
		if m, ok := g.(map[string]any); ok && childName(m) != "" {
			byName[childName(m)] = m
		}
	}
	for _, w := range want {
		wm, ok := w.(map[string]any)
		if !ok {
			return true
		}
		gm, ok := byName[childName(wm)]
		if !ok || walk(wm, gm) {
			return true
		}
	}
	return false
}
