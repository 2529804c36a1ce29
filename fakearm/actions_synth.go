package fakearm

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// synth builds a response value shaped like its schema. path is the
// concrete path (slots of secrets are named by it), table the table path;
// echo is the request's value at the same path, returned where it fits
// (setLegalHold answers the tags it was sent); index is the position in
// the nearest array (-1 outside arrays). Arrays holding secrets get two
// items (key1 and key2, primary and secondary), others one. A string
// member named <x>Name inside an array item is <x><position>: keyName
// key1, key2, as storage names its keys.
func (s *Server) synth(res *resource, b *descriptor.Body, path, table descriptor.Path, f descriptor.Field, echo any, index int) any {
	switch f.Type {
	case "object":
		em, _ := echo.(map[string]any)
		if f.Open {
			if em != nil {
				return runtime.DeepCopyJSONValue(em)
			}
			return map[string]any{}
		}
		out := map[string]any{}
		children := b.Children(table)
		for _, name := range slices.Sorted(maps.Keys(children)) {
			if name == descriptor.Values {
				for k, v := range em {
					if _, declared := children[k]; !declared {
						out[k] = runtime.DeepCopyJSONValue(v)
					}
				}
				continue
			}
			out[name] = s.synth(res, b, path.Child(name), table.Child(name), children[name], em[name], index)
		}
		return out
	case "array":
		item, ok := b.Field(table.Item())
		if !ok {
			return []any{}
		}
		ea, _ := echo.([]any)
		n := 1
		if hasSecretBelow(b, table.Item()) {
			n = 2
		} else if ea != nil {
			n = len(ea)
		}
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			var e any
			if i < len(ea) {
				e = ea[i]
			}
			out = append(out, s.synth(res, b, path.Index(i), table.Item(), item, e, i))
		}
		return out
	}
	if echo != nil && fits(f, echo) && !f.Secret {
		return echo
	}
	name := table.Last()
	switch {
	case f.Secret:
		return s.secret(res, path.String())
	case len(f.Enum) > 0:
		return enumValue(f)
	case f.Type == "string" && index >= 0 && strings.HasSuffix(name, "Name") && len(name) > 4:
		return strings.ToLower(name[:len(name)-4]) + strconv.Itoa(index+1)
	case f.Format == "date-time":
		return res.Modified.Format(time.RFC3339Nano)
	case f.Type == "string" && (f.Format == "uri" || strings.HasSuffix(strings.ToLower(name), "uri") || strings.HasSuffix(strings.ToLower(name), "url")):
		segs := strings.Split(res.ID, "/")
		return "https://" + strings.ToLower(segs[len(segs)-1]) + ".fakearm.invalid/" + name
	}
	return placeholder(descriptor.Property{Path: table, Type: f.Type}, res)
}

// enumValue is the first enum value in the field's JSON type.
func enumValue(f descriptor.Field) any {
	v := f.Enum[0]
	switch f.Type {
	case "integer", "number":
		return json.Number(v)
	case "boolean":
		return v == "true"
	}
	return v
}

// fits reports whether a request value can be echoed as a field's value.
func fits(f descriptor.Field, v any) bool {
	switch v.(type) {
	case string:
		return f.Type == "string" || f.Type == ""
	case bool:
		return f.Type == "boolean" || f.Type == ""
	case json.Number, float64, int64:
		return f.Type == "integer" || f.Type == "number" || f.Type == ""
	}
	return false
}

func hasSecretBelow(b *descriptor.Body, table descriptor.Path) bool {
	for _, p := range b.SecretPaths() {
		if p.HasPrefix(table) {
			return true
		}
	}
	return false
}

// secretSlots calls fn for every secret leaf of a synthesised response:
// its concrete path, its table path and the object holding it.
func secretSlots(b *descriptor.Body, v any, path, table descriptor.Path, parent map[string]any, fn func(slot, table descriptor.Path, siblings map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			ct := table.Child(k)
			if _, ok := b.Field(ct); !ok {
				ct = table.Value()
			}
			secretSlots(b, x[k], path.Child(k), ct, x, fn)
		}
	case []any:
		for i, e := range x {
			secretSlots(b, e, path.Index(i), table.Item(), nil, fn)
		}
	default:
		if f, ok := b.Field(table); ok && f.Secret {
			fn(path, table, parent)
		}
	}
}

// leaves calls fn for every string leaf of a decoded request, in order.
func leaves(v any, path descriptor.Path, fn func(path descriptor.Path, value string)) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			leaves(x[k], path.Child(k), fn)
		}
	case []any:
		for i, e := range x {
			leaves(e, path.Index(i), fn)
		}
	case string:
		fn(path, x)
	}
}
