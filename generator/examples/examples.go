package examples

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Example is one x-ms-examples entry of a PUT operation.
type Example struct {
	Title string
	// File is the example file, relative to the spec root.
	File   string
	Params map[string]any
	// Body is the request body.
	Body map[string]any
	// Names are the names in the resource path, one per type segment.
	Names []string
	// ResourceGroup is the resource group name in the path, if any.
	ResourceGroup string
	// Responses are the example's response bodies by status code.
	Responses map[string]any
}

// Load reads the PUT examples of a resource, sorted by title.
func Load(root string, r *tree.Resource) ([]Example, []error) {
	put := r.Ops["PUT"]
	if put == nil {
		return nil, nil
	}
	titles := make([]string, 0, len(put.Examples))
	for t := range put.Examples {
		titles = append(titles, t)
	}
	sort.Strings(titles)
	var out []Example
	var errs []error
	for _, title := range titles {
		file := put.Examples[title]
		ex, err := loadOne(root, file, put.BodyParam, r)
		if err != nil {
			errs = append(errs, &Error{Title: title, File: file, Err: fmt.Errorf("x-ms-examples %q of %s: %w", title, put.Origin, err)})
			continue
		}
		if !fixedValues(ex.Params, r.PathValues) {
			continue // an example of another record type of the same path
		}
		ex.Title = title
		out = append(out, ex)
	}
	return out, errs
}

// fixedValues reports whether an example's path parameters agree with the
// values a resource type fixes (tree.Resource.PathValues): the examples of
// `…/{recordType}/{name}` go to the kind of their record type only.
func fixedValues(params map[string]any, fixed map[string]string) bool {
	for name, want := range fixed {
		if got, ok := params[name].(string); ok && !strings.EqualFold(got, want) {
			return false
		}
	}
	return true
}

func loadOne(root, file, bodyParam string, r *tree.Resource) (Example, error) {
	raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return Example{}, err
	}
	var doc struct {
		Parameters map[string]any `json:"parameters"`
		Responses  map[string]struct {
			Body any `json:"body"`
		} `json:"responses"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return Example{}, fmt.Errorf("invalid JSON: %w", err)
	}
	params, _ := normalize(doc.Parameters).(map[string]any)
	body, ok := params[bodyParam].(map[string]any)
	if _, present := params[bodyParam]; !present {
		body, ok = map[string]any{}, true // an optional body the example leaves out
	}
	if !ok {
		return Example{}, fmt.Errorf("parameters.%s (the PUT body) is not an object", bodyParam)
	}
	ex := Example{File: file, Params: params, Body: body, Responses: map[string]any{}}
	for code, r := range doc.Responses {
		ex.Responses[code] = normalize(r.Body)
	}
	segs := strings.Split(strings.Trim(r.Path, "/"), "/")
	n := len(r.Types)
	if len(segs) < 2*n {
		return Example{}, fmt.Errorf("path %s is shorter than its type", r.Path)
	}
	for i := len(segs) - 2*n + 1; i < len(segs); i += 2 {
		ex.Names = append(ex.Names, value(segs[i], params))
	}
	for i := 0; i+1 < len(segs); i++ {
		if strings.EqualFold(segs[i], "resourceGroups") {
			ex.ResourceGroup = value(segs[i+1], params)
		}
	}
	return ex, nil
}

// value is a path segment's value: a literal, or the example's parameter.
func value(seg string, params map[string]any) string {
	if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
		return fmt.Sprint(params[strings.Trim(seg, "{}")])
	}
	return seg
}

// normalize turns json.Number into int64 or float64, as the apiserver's JSON
// decoding does.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// Error is an example that could not be read.
type Error struct {
	Title, File string
	Err         error
}

func (e *Error) Error() string { return e.File + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// CR is a custom resource made from an example.
type CR struct {
	Object map[string]any
	// Dropped are readOnly paths removed from the body.
	Dropped []string
	// Hidden are paths removed from the body because an override of
	// specs/armature.yaml hides them.
	Hidden []string
	// Secrets are paths whose values became Secret references.
	Secrets []string
	// SecretValues are the example's values of the Secret references,
	// by key (a non-string value as JSON).
	SecretValues map[string]string
	// Recased are properties (as the example spells them) written in another case than the
	// swagger (`Policy` for `policy`): ARM reads JSON names without regard
	// to case, a CRD does not, so the key is written as the swagger has it.
	Recased []string
}

var notDNS = regexp.MustCompile(`[^a-z0-9.-]+`)

// Name makes a Kubernetes object name from ARM names.
func Name(parts ...string) string {
	n := notDNS.ReplaceAllString(strings.ToLower(strings.Join(parts, "-")), "-")
	n = strings.Trim(n, "-.")
	if len(n) > 253 {
		n = strings.Trim(n[:253], "-.")
	}
	if n == "" {
		n = "x"
	}
	return n
}

// ToCR builds the custom resource of kind k from an example.
func ToCR(k *model.Kind, ex Example) CR {
	name := Name(ex.Names...)
	spec := deepCopy(ex.Body).(map[string]any)
	cr := CR{}
	transform(spec, nil, k.Table, name, &cr)
	spec["azureName"] = ex.Names[len(ex.Names)-1]
	if owner := ownerName(k, ex); owner != "" {
		spec["owner"] = map[string]any{"name": owner}
	} else if scope, ok := ex.Params["scope"].(string); ok && k.Resource.Scope == tree.ScopeExtension {
		id := "/" + strings.TrimPrefix(scope, "/")
		if !strings.HasPrefix(strings.ToLower(id), "/subscriptions/") {
			// An example whose scope is no id (Authorization's "scope"):
			// a resource group stands for it.
			id = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/example"
		}
		spec["owner"] = map[string]any{"armId": id}
	}
	cr.Object = map[string]any{
		"apiVersion": k.Package.Group + "/" + k.Package.Version,
		"kind":       k.Name,
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}
	sort.Strings(cr.Dropped)
	sort.Strings(cr.Hidden)
	sort.Strings(cr.Secrets)
	sort.Strings(cr.Recased)
	return cr
}

func ownerName(k *model.Kind, ex Example) string {
	r := k.Resource
	switch {
	case len(ex.Names) > 1:
		return Name(ex.Names[:len(ex.Names)-1]...)
	case r.Owner == tree.ResourceGroupType && ex.ResourceGroup != "":
		return Name(ex.ResourceGroup)
	}
	return ""
}

// transform drops readOnly values and turns secrets into references, in
// place.
func transform(obj map[string]any, prefix descriptor.Path, t *classify.Table, crName string, cr *CR) {
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		p := prefix.Child(key)
		if _, known := t.Class(p); !known && len(prefix) > 0 && hasPrefix(t, prefix.Value()) {
			p = prefix.Value() // a map value
		}
		if _, known := t.Class(p); !known {
			if name, ok := otherCase(t, prefix, key); ok {
				if _, taken := obj[name]; !taken {
					obj[name] = obj[key]
					delete(obj, key)
					cr.Recased = append(cr.Recased, p.String())
					key, p = name, prefix.Child(name)
				}
			}
		}
		e, known := t.Entry(p)
		c := e.Class
		switch {
		case known && e.Hidden:
			delete(obj, key)
			cr.Hidden = append(cr.Hidden, p.String())
			continue
		case known && c == classify.ReadOnly:
			delete(obj, key)
			cr.Dropped = append(cr.Dropped, p.String())
			continue
		case known && c == classify.Secret:
			if cr.SecretValues == nil {
				cr.SecretValues = map[string]string{}
			}
			cr.SecretValues[key] = secretValue(obj[key])
			obj[key] = map[string]any{"name": crName + "-secrets", "key": key}
			cr.Secrets = append(cr.Secrets, p.String())
			continue
		}
		switch v := obj[key].(type) {
		case map[string]any:
			transform(v, p, t, crName, cr)
		case []any:
			for _, item := range v {
				if m, ok := item.(map[string]any); ok {
					transform(m, p.Item(), t, crName, cr)
				}
			}
		}
	}
}

// secretValue is an example's secret value as a Secret holds it.
func secretValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// otherCase returns the one property below prefix whose name is key in
// another case.
func otherCase(t *classify.Table, prefix descriptor.Path, key string) (string, bool) {
	found := ""
	for _, e := range t.Entries {
		if len(e.Path) != len(prefix)+1 || !e.Path.HasPrefix(prefix) {
			continue
		}
		name := e.Path[len(prefix)]
		if name != key && strings.EqualFold(name, key) {
			if found != "" && found != name {
				return "", false
			}
			found = name
		}
	}
	return found, found != ""
}

func hasPrefix(t *classify.Table, prefix descriptor.Path) bool {
	for _, e := range t.Entries {
		if e.Path.HasPrefix(prefix) {
			return true
		}
	}
	return false
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// Default is a value ARM fills in when a request leaves the property out.
type Default struct {
	Path descriptor.Path
	// JSON is the value, as JSON.
	JSON string
}

// ServerDefaults learns, from real examples, the values ARM fills in: a
// property (outside arrays and maps) that a 200/201 response body has and
// its request left out, with a scalar or empty value that every example
// showing it agrees on. A filled array, or a string holding an id or a URL,
// is the example's own: the default is the member with an empty value
// ([] or ""), so that the emulator's GET has the members ARM's has. ReadOnly properties are left to the emulator's own
// placeholders, secrets and writeOnly ones are never returned.
//
// Where examples disagree (a default that depends on other settings), the
// most frequent value is used, so the property is at least present.
func ServerDefaults(t *classify.Table, exs []Example) []Default {
	seen := map[string]map[string]int{}
	for _, ex := range exs {
		resp, _ := ex.Responses["200"].(map[string]any)
		if resp == nil {
			resp, _ = ex.Responses["201"].(map[string]any)
		}
		if resp == nil {
			continue
		}
		collectDefaults(t, resp, ex.Body, nil, seen)
	}
	paths := make([]descriptor.Path, 0, len(seen))
	for p := range seen {
		paths = append(paths, descriptor.MustParsePath(p))
	}
	slices.SortFunc(paths, descriptor.Path.Compare)
	var out []Default
	for _, path := range paths {
		p := path.String()
		best, n := "", 0
		for v, c := range seen[p] {
			if c > n || c == n && v < best {
				best, n = v, c
			}
		}
		out = append(out, Default{Path: path, JSON: best})
	}
	return out
}

func collectDefaults(t *classify.Table, resp, req map[string]any, prefix descriptor.Path, seen map[string]map[string]int) {
	for k, v := range resp {
		p := prefix.Child(k)
		c, known := t.Class(p)
		if !known || c == classify.ReadOnly || c == classify.Secret || c == classify.WriteOnly {
			continue
		}
		rv, inReq := req[k]
		if inReq {
			if rm, ok := rv.(map[string]any); ok {
				if vm, ok := v.(map[string]any); ok {
					collectDefaults(t, vm, rm, p, seen)
				}
			}
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			if len(x) > 0 {
				collectDefaults(t, x, map[string]any{}, p, seen)
				continue
			}
		case []any:
			if len(x) > 0 {
				v = []any{} // the items are the example's: ARM fills the member
			}
		case string:
			if strings.Contains(x, "/") {
				v = "" // ids and URLs name the example's resources: ARM fills the member
			}
		}
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		key := p.String()
		if seen[key] == nil {
			seen[key] = map[string]int{}
		}
		seen[key][string(b)]++
	}
}

// NameDerived learns, from real examples, the read-only strings ARM derives
// from the resource's name: a value of a 200/201 response (outside arrays
// and maps; not the body's own id, name or type) that holds the example's
// resource name (its last path name, 3 characters or more) becomes a
// template with {name} in its place
// (https://{name}.blob.core.windows.net/). Where examples disagree, the
// most frequent template is used.
func NameDerived(t *classify.Table, exs []Example) []Default {
	seen := map[string]map[string]int{}
	for _, ex := range exs {
		if len(ex.Names) == 0 || len(ex.Names[len(ex.Names)-1]) < 3 {
			continue
		}
		resp, _ := ex.Responses["200"].(map[string]any)
		if resp == nil {
			resp, _ = ex.Responses["201"].(map[string]any)
		}
		collectDerived(t, resp, nil, ex.Names[len(ex.Names)-1], seen)
	}
	var out []Default
	for _, p := range slices.Sorted(maps.Keys(seen)) {
		best, n := "", 0
		for v, c := range seen[p] {
			if c > n || c == n && v < best {
				best, n = v, c
			}
		}
		out = append(out, Default{Path: descriptor.MustParsePath(p), JSON: best})
	}
	return out
}

func collectDerived(t *classify.Table, v map[string]any, prefix descriptor.Path, name string, seen map[string]map[string]int) {
	for k, x := range v {
		p := prefix.Child(k)
		if len(prefix) == 0 && (k == "id" || k == "name" || k == "type") {
			continue
		}
		switch x := x.(type) {
		case map[string]any:
			collectDerived(t, x, p, name, seen)
		case string:
			if c, known := t.Class(p); !known || c != classify.ReadOnly || !strings.Contains(x, name) {
				continue
			}
			b, err := json.Marshal(strings.ReplaceAll(x, name, "{name}"))
			if err != nil {
				continue
			}
			key := p.String()
			if seen[key] == nil {
				seen[key] = map[string]int{}
			}
			seen[key][string(b)]++
		}
	}
}
