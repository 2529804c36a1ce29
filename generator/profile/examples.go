package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Defaults from every example (issue 28.2). A member that an x-ms-examples
// response of the type's GET or PUT shows and that no PUT example's request
// sends is one ARM fills in itself: the emulator's answers carry it when
// the request left it out, as ARM's do, for every served type, recorded or
// not. Its value is the one the examples show most (a PUT example that left
// the member out first); the examples' own data is emptied: a filled array
// becomes [], a string holding an id or URL "" (as Descriptor.ServerDefaults
// does), so that the answer has ARM's members without inventing the
// example's resources. A member some PUT example sends is the caller's
// choice: the responses showing it say nothing of a default. Recorded
// defaults (defaults) win over these, path by path.

// exampleDefaults are the server defaults the examples of a kind show, at
// the top level and under properties, for writable and create-only
// members (readOnly ones are the emulator's placeholders).
func (l *learner) exampleDefaults(k *model.Kind) []recording.Default {
	r := k.Resource
	put := r.Ops[http.MethodPut]
	if put == nil {
		return nil
	}
	sent := map[string]bool{}
	var shown []exampleAnswer
	for _, ex := range l.readExamples(put, r.PathValues) {
		req, _ := ex.params[put.BodyParam].(map[string]any)
		for k := range req {
			sent[k] = true
		}
		if props, ok := req["properties"].(map[string]any); ok {
			for k := range props {
				sent["properties."+k] = true
			}
		}
		for _, code := range []string{"200", "201"} {
			if body, ok := ex.responses[code].(map[string]any); ok {
				shown = append(shown, exampleAnswer{file: ex.file, body: body, request: req, put: true})
				break
			}
		}
	}
	if get := r.Ops[http.MethodGet]; get != nil {
		for _, ex := range l.readExamples(get, r.PathValues) {
			if body, ok := ex.responses["200"].(map[string]any); ok {
				shown = append(shown, exampleAnswer{file: ex.file, body: body})
			}
		}
	}
	type seenValue struct {
		left  bool // a PUT example left the member out
		files []string
	}
	found := map[string]map[string]*seenValue{}
	for _, a := range shown {
		members(seen{body: a.body, request: a.request}, func(path descriptor.Path, v, _ any, wasSent bool) {
			key := path.String()
			if v == nil || wasSent || sent[key] {
				return
			}
			if c, ok := k.Table.Class(path); !ok || c != classify.Writable && c != classify.CreateOnly {
				return
			}
			b, err := json.Marshal(emptied(k.Table, path, specField(k, path), v))
			if err != nil {
				return
			}
			if found[key] == nil {
				found[key] = map[string]*seenValue{}
			}
			sv := found[key][string(b)]
			if sv == nil {
				sv = &seenValue{}
				found[key][string(b)] = sv
			}
			sv.left = sv.left || a.put
			sv.files = append(sv.files, a.file)
		})
	}
	var out []recording.Default
	for _, key := range slices.Sorted(maps.Keys(found)) {
		best := ""
		for _, v := range slices.Sorted(maps.Keys(found[key])) {
			b, sv := found[key][best], found[key][v]
			if best == "" || sv.left && !b.left || sv.left == b.left && len(sv.files) > len(b.files) {
				best = v
			}
		}
		sv := found[key][best]
		files := slices.Compact(slices.Sorted(slices.Values(sv.files)))
		src := fmt.Sprintf("x-ms-examples: shown by %d response(s), sent by no request: %s", len(sv.files), strings.Join(files[:min(2, len(files))], ", "))
		if len(files) > 2 {
			src += ", …"
		}
		out = append(out, recording.Default{Path: key, Value: json.RawMessage(best), Source: src})
	}
	return out
}

// exampleAnswer is an example response body, with the PUT request when it
// answers one.
type exampleAnswer struct {
	file          string
	body, request map[string]any
	put           bool
}

// example is one x-ms-examples file of an operation.
type example struct {
	file      string
	params    map[string]any
	responses map[string]any
}

// readExamples reads the examples of an operation (notes what cannot be
// read), leaving out those of another record type of the path.
func (l *learner) readExamples(op *tree.Operation, fixed map[string]string) []example {
	var out []example
	for _, title := range slices.Sorted(maps.Keys(op.Examples)) {
		file := op.Examples[title]
		b, err := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(file)))
		if err != nil {
			continue // exampleCodes notes it
		}
		var doc struct {
			Parameters map[string]any `json:"parameters"`
			Responses  map[string]struct {
				Body any `json:"body"`
			} `json:"responses"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if dec.Decode(&doc) != nil {
			continue
		}
		ex := example{file: file, params: doc.Parameters, responses: map[string]any{}}
		other := false
		for name, want := range fixed {
			if got, ok := ex.params[name].(string); ok && !strings.EqualFold(got, want) {
				other = true
			}
		}
		if other {
			continue
		}
		for code, r := range doc.Responses {
			ex.responses[code] = r.Body
		}
		out = append(out, ex)
	}
	return out
}

// emptied is an example's value with its own data taken out: filled
// arrays become [], maps (tags) and free-form objects {}, and a string becomes "" unless
// the swagger makes it an enum and it is one of its values (a name, an id
// or a URL is the example's own; an enum value is ARM's), below objects
// too. field is the spec field the value is at, nil when unknown.
func emptied(t *classify.Table, path descriptor.Path, field *model.TypeRef, v any) any {
	switch x := v.(type) {
	case []any:
		return []any{}
	case string:
		if field != nil && field.Kind == model.EnumRef && field.Enum != nil && slices.ContainsFunc(field.Enum.Values, func(e model.EnumValue) bool { return strings.EqualFold(e.Value, x) }) {
			return x
		}
		return ""
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			// A member the table does not name is an entry of a map or
			// of a free-form object: the example's own.
			if _, known := t.Class(path.Child(k)); known {
				out[k] = emptied(t, path.Child(k), fieldOf(field, k), e)
			}
		}
		return out
	}
	return v
}

// fieldOf is the type of a struct's field by JSON name, or nil.
func fieldOf(in *model.TypeRef, name string) *model.TypeRef {
	if in == nil || in.Kind != model.StructRef || in.Struct == nil {
		return nil
	}
	for _, f := range in.Struct.Fields {
		if f.JSONName == name {
			return f.Type
		}
	}
	return nil
}

// specField is the type of the spec field at a body path, or nil.
func specField(k *model.Kind, path descriptor.Path) *model.TypeRef {
	t := &model.TypeRef{Kind: model.StructRef, Struct: k.Spec}
	for _, seg := range path {
		if t = fieldOf(t, seg); t == nil {
			return nil
		}
	}
	return t
}

// withExampleDefaults adds the example defaults of paths the recorded
// defaults do not have, sorted by path.
func withExampleDefaults(recorded, examples []recording.Default) []recording.Default {
	have := map[string]bool{}
	for _, d := range recorded {
		have[d.Path] = true
	}
	out := slices.Clone(recorded)
	for _, d := range examples {
		if !have[d.Path] {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b recording.Default) int { return strings.Compare(a.Path, b.Path) })
	return out
}
