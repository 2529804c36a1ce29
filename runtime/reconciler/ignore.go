package reconciler

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// ignored are the paths of spec.operatorSpec.ignoreChanges: values sent
// when the resource is created, then never corrected or sent again
// (docs/ignore-changes.md). A path is in the text form of descriptor.Path
// from the ARM body root; `[*]` stands for every item of an array and `*`
// for every value of a map. The webhook refuses paths the kind does not
// have; here an entry that does not parse is skipped.
type ignored []descriptor.Path

// ignoredOf reads spec.operatorSpec.ignoreChanges.
func ignoredOf(obj *unstructured.Unstructured) ignored {
	raw, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "operatorSpec", "ignoreChanges")
	var out ignored
	for _, s := range raw {
		if p, err := descriptor.ParsePath(s); err == nil && len(p) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// pairFn is called for each member a path names in a body, with the
// member's holder in the other body (nil when the other body has none
// there) and whether the member is inside an array item.
type pairFn func(holder map[string]any, key string, other map[string]any, inArray bool)

// pairs walks path p over body v and, in step, over other: items of an
// array pair by their "name" when both have one, else by index; map values
// by key.
func pairs(v, other any, p descriptor.Path, inArray bool, fn pairFn) {
	if len(p) == 0 {
		return
	}
	seg, rest := p[0], p[1:]
	switch seg {
	case descriptor.Items:
		arr, _ := v.([]any)
		oarr, _ := other.([]any)
		for i, item := range arr {
			pairs(item, pairedItem(item, oarr, i), rest, true, fn)
		}
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	om, _ := other.(map[string]any)
	keys := []string{seg}
	if seg == descriptor.Values {
		keys = slices.Sorted(maps.Keys(m))
	}
	for _, k := range keys {
		if len(rest) == 0 {
			if _, ok := m[k]; ok {
				fn(m, k, om, inArray)
			}
			continue
		}
		child, had := m[k].(map[string]any)
		pairs(m[k], om[k], rest, inArray, fn)
		if had && len(child) == 0 {
			// Emptied by fn (fixPatch): nothing left to say there.
			delete(m, k)
		}
	}
}

// pairedItem is the item of arr that pairs with item, at index i.
func pairedItem(item any, arr []any, i int) any {
	if im, ok := item.(map[string]any); ok {
		if name, ok := im["name"].(string); ok && name != "" {
			for _, o := range arr {
				if om, ok := o.(map[string]any); ok && om["name"] == name {
					return om
				}
			}
			return nil
		}
	}
	if i < len(arr) {
		return arr[i]
	}
	return nil
}

// mask returns a copy of body without the values at the ignored paths.
func (ig ignored) mask(body map[string]any) map[string]any {
	if len(ig) == 0 || body == nil {
		return body
	}
	out := runtime.DeepCopyJSON(body)
	for _, p := range ig {
		pairs(out, nil, p, false, func(h map[string]any, k string, _ map[string]any, _ bool) { delete(h, k) })
	}
	return out
}

// differs returns the ignored paths at which a value the spec sets differs
// from the live one: drift that is reported and never corrected.
func (ig ignored) differs(desired, live map[string]any) []string {
	if live == nil {
		return nil
	}
	var out []string
	for _, p := range ig {
		found := false
		pairs(desired, live, p, false, func(h map[string]any, k string, lh map[string]any, _ bool) {
			lv, ok := lh[k]
			if !ok || !sameValue(h[k], lv) {
				found = true
			}
		})
		if found {
			out = append(out, p.String())
		}
	}
	return out
}

// fixPatch takes the ignored paths out of a merge patch for a resource
// that exists: an object member is left out (a merge patch leaves what it
// does not name as it is); a member of an array item is set to the live
// value, since an array in a merge patch replaces the live one whole (and
// left out when the live item has none; an item Azure does not have yet
// is new, and keeps the spec's value, as on create). needLive is true when
// an array item needs the live value and live is nil.
func (ig ignored) fixPatch(patch, live map[string]any) (needLive bool) {
	for _, p := range ig {
		pairs(patch, live, p, false, func(h map[string]any, k string, lh map[string]any, inArray bool) {
			switch lv, ok := lh[k]; {
			case !inArray:
				delete(h, k)
			case live == nil:
				needLive = true
			case lh == nil:
				// A new item: its value is sent, as on create.
			case ok:
				h[k] = runtime.DeepCopyJSONValue(lv)
			default:
				delete(h, k)
			}
		})
	}
	return needLive
}

// ignoredNote is the Ready condition's note on drift at ignored paths.
func ignoredNote(paths []string) string {
	return "Azure differs from spec at " + strings.Join(paths, ", ") + ": ignored (spec.operatorSpec.ignoreChanges), not corrected"
}

// dropUnchanged takes out of a merge patch the members whose value the
// live resource already has (compared on what a spec can set below them):
// after fixPatch, an array whose only change was at an ignored path holds
// the live values again, and sending it would be a write that changes
// nothing.
func dropUnchanged(d *descriptor.Descriptor, patch, live map[string]any, table descriptor.Path) {
	for k, v := range patch {
		lv, ok := live[k]
		if !ok || v == nil {
			continue
		}
		tp, _, _ := d.Child(table, k)
		pm, pok := v.(map[string]any)
		lm, lok := lv.(map[string]any)
		if pok && lok && !d.Open(tp) {
			dropUnchanged(d, pm, lm, tp)
			if len(pm) == 0 {
				delete(patch, k)
			}
			continue
		}
		if mustJSON(v) == mustJSON(settable(d, tp, lv)) {
			delete(patch, k)
		}
	}
}
