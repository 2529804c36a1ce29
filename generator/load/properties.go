package load

import (
	"fmt"
	"sort"
)

// Property is one property of an object schema after flattening.
type Property struct {
	// Name is the JSON name on the wire.
	Name string
	// ClientName is x-ms-client-name when present.
	ClientName string
	// Decl is the schema as written on the property; it may be a `$ref` with
	// siblings such as readOnly or x-ms-mutability.
	Decl Schema
	// Schema is Decl with `$ref`s followed.
	Schema Schema
	// Required is true when the declaring schema lists the property as
	// required.
	Required bool
	// Subtype names the discriminator value of the subtype that declares
	// the property, when it comes from a subtype of a discriminated base.
	// Such a property is never Required: only that subtype requires it.
	Subtype string
	// Conflict is true when subtypes declare the property with different
	// schemas; Schema is then the first subtype's.
	Conflict bool
}

// ReadOnly reports `readOnly: true` on the property or on its target.
func (p Property) ReadOnly() bool { return p.Decl.ReadOnly || p.Schema.ReadOnly }

// Mutability returns x-ms-mutability of the property (or of its target) and
// whether it is declared.
func (p Property) Mutability() ([]string, bool) {
	if m, ok := ExtStrings(p.Decl.Extensions, "x-ms-mutability"); ok {
		return m, true
	}
	return ExtStrings(p.Schema.Extensions, "x-ms-mutability")
}

// Secret reports x-ms-secret: true or format: password.
func (p Property) Secret() bool {
	return ExtBool(p.Decl.Extensions, "x-ms-secret") || ExtBool(p.Schema.Extensions, "x-ms-secret") ||
		p.Decl.Format == "password" || p.Schema.Format == "password"
}

// Description is the property's description, or its target's.
func (p Property) Description() string {
	if p.Decl.Description != "" {
		return p.Decl.Description
	}
	return p.Schema.Description
}

// Properties returns the properties of an object schema: `allOf` parents
// first merged in, then its own (which win), sorted by name. For a base type
// with a discriminator, the properties of its subtypes are added (marked
// with Subtype), so the union describes every shape the wire may carry.
func (l *Loader) Properties(s Schema) ([]Property, error) {
	s, err := l.Deref(s)
	if err != nil {
		return nil, err
	}
	key := s.Origin.String()
	if ps, ok := l.full[key]; ok {
		return ps, nil
	}
	ps, err := l.plainProperties(s)
	if err != nil {
		return nil, err
	}
	if s.Discriminator != "" {
		have := map[string]int{}
		ps = append([]Property(nil), ps...)
		for i, p := range ps {
			have[p.Name] = i
		}
		for _, sub := range l.allSubtypes(s) {
			sps, err := l.plainProperties(sub)
			if err != nil {
				return nil, err
			}
			value := DiscriminatorValue(sub)
			for _, p := range sps {
				i, seen := have[p.Name]
				if !seen {
					have[p.Name] = len(ps)
					p.Subtype = value
					p.Required = false
					ps = append(ps, p)
					continue
				}
				if q := &ps[i]; q.Subtype != "" && !compatible(q.Schema, p.Schema) {
					q.Conflict = true
				}
			}
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	}
	l.full[key] = ps
	return ps, nil
}

// Subtypes returns the definitions that name s in their allOf, in a stable
// order (file, then name).
func (l *Loader) Subtypes(s Schema) []Schema {
	subs := append([]Schema(nil), l.subtypes[s.Origin.String()]...)
	sort.Slice(subs, func(i, j int) bool { return subs[i].Origin.String() < subs[j].Origin.String() })
	return subs
}

// allSubtypes returns the subtypes of s and theirs, transitively (a
// grandchild such as AppPlatform's SourceUploadedUserSourceInfo, below
// UploadedUserSourceInfo below UserSourceInfo, is a shape the wire carries
// too): children first, each once.
func (l *Loader) allSubtypes(s Schema) []Schema {
	seen := map[string]bool{s.Origin.String(): true}
	var out []Schema
	queue := []Schema{s}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, sub := range l.Subtypes(cur) {
			if k := sub.Origin.String(); !seen[k] {
				seen[k] = true
				out = append(out, sub)
				queue = append(queue, sub)
			}
		}
	}
	return out
}

// DiscriminatorValue is x-ms-discriminator-value, or the definition name.
func DiscriminatorValue(s Schema) string {
	if v := ExtString(s.Extensions, "x-ms-discriminator-value"); v != "" {
		return v
	}
	return s.Name
}

func (l *Loader) plainProperties(s Schema) ([]Property, error) {
	key := s.Origin.String()
	if ps, ok := l.plain[key]; ok {
		return ps, nil
	}
	if l.busy[key] {
		return nil, &Error{Origin: s.Origin, Msg: "allOf cycle: the schema is its own ancestor"}
	}
	l.busy[key] = true
	defer delete(l.busy, key)

	byName := map[string]Property{}
	for i := range s.AllOf {
		parent, err := l.Deref(Schema{Schema: &s.AllOf[i], Origin: s.Origin.Child("allOf", fmt.Sprint(i))})
		if err != nil {
			return nil, err
		}
		pps, err := l.plainProperties(parent)
		if err != nil {
			return nil, err
		}
		for _, p := range pps {
			byName[p.Name] = p
		}
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, name := range SortedKeys(s.Properties) {
		ps := s.Properties[name]
		decl := Schema{Schema: &ps, Origin: s.Origin.Child("properties", name)}
		target, err := l.Deref(decl)
		if err != nil {
			return nil, err
		}
		byName[name] = Property{
			Name:       name,
			ClientName: ExtString(ps.Extensions, "x-ms-client-name"),
			Decl:       decl,
			Schema:     target,
		}
	}
	out := make([]Property, 0, len(byName))
	for _, name := range SortedKeys(byName) {
		p := byName[name]
		if required[name] {
			p.Required = true
		}
		out = append(out, p)
	}
	l.plain[key] = out
	return out, nil
}

// compatible reports two property schemas that model the same values: the
// same schema, or the same scalar type without enums.
func compatible(a, b Schema) bool {
	if a.Origin == b.Origin {
		return true
	}
	scalar := func(s Schema) bool {
		return len(s.Type) == 1 && s.Type[0] != "object" && s.Type[0] != "array" && len(s.Enum) == 0 && len(s.Properties) == 0
	}
	return scalar(a) && scalar(b) && a.Type[0] == b.Type[0]
}
