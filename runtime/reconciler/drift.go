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
// locations.
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
			wm, wok := wv.(map[string]any)
			gm, gok := gv.(map[string]any)
			if wok && gok && !d.Open(tp) {
				walk(wm, gm, tp, p)
				continue
			}
			if !sameValue(wv, gv) {
				out = append(out, p.String())
			}
		}
	}
	walk(desired, live, nil, nil)
	sort.Strings(out)
	return out
}

// settled splits drift paths into those Azure changed since the operator
// last looked (drift: corrected) and those where ARM answers what was
// applied in its own way (a Redis redisVersion "6" read back as "6.0.14",
// a value the service fills in): the value the GET right after a write
// returned, still the same as in status. The second kind is never
// corrected: a PUT would get the same answer again, forever.
func settled(st *state, paths []string, live map[string]any) (drifted, normalised []string) {
	for _, p := range paths {
		path, err := descriptor.ParsePath(p)
		switch {
		case st.wrote:
			normalised = append(normalised, p)
		case err == nil && sameAt(path, st.orig, live):
			normalised = append(normalised, p)
		default:
			drifted = append(drifted, p)
		}
	}
	return drifted, normalised
}

// sameAt reports whether two bodies hold the same value at a path (or
// both none: a value the service drops). A nil a (no status yet) holds
// nothing to compare.
func sameAt(p descriptor.Path, a, b map[string]any) bool {
	if a == nil {
		return false
	}
	av, aok := p.Get(a)
	bv, bok := p.Get(b)
	return aok == bok && (!aok || sameValue(av, bv))
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
