package reconciler

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// drift compares the desired body with the live GET body and returns the
// paths whose live value differs, in their text form. Only values the spec
// sets are compared; secret, writeOnly and readOnly paths never are.
// Strings compare without case and spaces, as ARM normalises names such as
// locations. An embedded child collection is compared child by child
// (embedded.go): live children the spec does not name are no drift.
func drift(d *descriptor.Descriptor, desired, live map[string]any) []string {
	if desired == nil || live == nil {
		return nil
	}
	var out []string
	var walk func(want, got map[string]any, table, path descriptor.Path)
	walk = func(want, got map[string]any, table, path descriptor.Path) {
		for k, wv := range want {
			tp, c, known := d.Child(table, k)
			p := path.Child(k)
			if !known || c == descriptor.Secret || c == descriptor.WriteOnly || c == descriptor.ReadOnly {
				continue
			}
			gv, ok := got[k]
			if !ok {
				out = append(out, p.String())
				continue
			}
			if _, embedded := d.Embedded(tp); embedded {
				wa, _ := wv.([]any)
				ga, _ := gv.([]any)
				if driftChildren(wa, ga, func(w, g map[string]any) bool {
					n := len(out)
					walk(w, g, tp.Item(), p.Item())
					found := len(out) > n
					out = out[:n]
					return found
				}) {
					out = append(out, p.String())
				}
				continue
			}
			wm, wok := wv.(map[string]any)
			gm, gok := gv.(map[string]any)
			if wok && gok && !d.Open(tp) {
				walk(wm, gm, tp, p)
				continue
			}
			if !sameValue(wv, settable(d, tp, gv)) {
				out = append(out, p.String())
			}
		}
	}
	walk(desired, live, nil, nil)
	sort.Strings(out)
	return out
}

// settable returns the live value at table path tp without what a spec
// cannot hold below it (readOnly, secret, writeOnly and unknown members of
// objects and array items): a value compared whole, such as an array of
// rules whose items ARM returns with a readOnly state, is compared on what
// the spec can set. Open values (tags, free-form objects) are kept whole.
func settable(d *descriptor.Descriptor, tp descriptor.Path, v any) any {
	if d.Open(tp) {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			ctp, c, known := d.Child(tp, k)
			if !known || c == descriptor.ReadOnly || c == descriptor.Secret || c == descriptor.WriteOnly {
				continue
			}
			out[k] = settable(d, ctp, e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = settable(d, tp.Item(), e)
		}
		return out
	}
	return v
}

// unchangedSince reports whether the live value at a path is what the
// status holds (or both hold none: a value the service drops), on the
// status's digest (digest.go): at the member of the digest that holds the
// path. A nil status (none yet) holds nothing to compare.
func unchangedSince(status map[string]any, p descriptor.Path, live map[string]any) bool {
	if status == nil || len(p) == 0 {
		return false
	}
	have := digestOf(status)
	key := p[:1]
	if h, _ := have.at(key); h == mapMark && len(p) > 1 {
		key = p[:2]
	}
	h, stored := have.at(key)
	v, ok := key.Get(live)
	switch {
	case !ok:
		return !stored
	case !stored:
		return false
	case h == mapMark:
		_, isMap := v.(map[string]any)
		return isMap
	}
	return h == valueHash(v)
}

func sameValue(a, b any) bool {
	norm := func(v any) any {
		raw, _ := json.Marshal(v)
		var out any
		_ = json.Unmarshal(raw, &out)
		return lowerStrings(out)
	}
	ab, _ := json.Marshal(norm(a))
	bb, _ := json.Marshal(norm(b))
	return string(ab) == string(bb)
}

func lowerStrings(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ToLower(strings.ReplaceAll(x, " ", ""))
	case map[string]any:
		for k, e := range x {
			x[k] = lowerStrings(e)
		}
	case []any:
		for i, e := range x {
			x[i] = lowerStrings(e)
		}
	}
	return v
}
