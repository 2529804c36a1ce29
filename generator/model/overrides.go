package model

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// walk is where a walk over one kind's schemas is: the kind's table and
// overrides, and the property path of the value being built (empty at the
// body root; with the wildcards of array items and map values, as in the
// table).
type walk struct {
	table  *classify.Table
	fixes  *override.Kind
	kind   string
	prefix descriptor.Path
}

// at returns the walk at another path.
func (w walk) at(path descriptor.Path) walk {
	w.prefix = path
	return w
}

// path returns the path of a property of the object at w.prefix.
func (w walk) path(name string) descriptor.Path { return w.prefix.Child(name) }

// entry returns the table entry of a path.
func (w walk) entry(path descriptor.Path) (classify.Entry, bool) {
	if w.table == nil {
		return classify.Entry{}, false
	}
	return w.table.Entry(path)
}

// typeOpts are what the property decides about its value's type.
type typeOpts struct {
	// secret makes a spec value a Secret key reference.
	secret bool
	// open makes an enum (or the enum items of an array or map) open.
	open bool
	// fix is the property's fix, told when its enum override applies.
	fix *override.Fix
}

// naturalName is the Go name of a property before numbering:
// x-ms-client-name, else the JSON name.
func naturalName(p load.Property) string {
	if p.ClientName != "" {
		return Pascal(p.ClientName)
	}
	return Pascal(p.Name)
}

// renames returns the Go names overrides give to properties of one object,
// by JSON name. A rename to a name another property of the object has (or
// is renamed to) is reported and ignored: it would silently rename that
// other field.
func (b *pkgBuilder) renames(props []load.Property, w walk) map[string]string {
	out := map[string]string{}
	taken := map[string]int{}
	for _, p := range props {
		name := naturalName(p)
		if f := w.fixes.At(w.path(p.Name)); f != nil && f.Rename != "" {
			name = f.Rename
		}
		taken[name]++
	}
	for _, p := range props {
		f := w.fixes.At(w.path(p.Name))
		if f == nil || f.Rename == "" || f.Rename == naturalName(p) {
			continue
		}
		if taken[f.Rename] > 1 {
			w.fixes.Problem(f, "rename", fmt.Sprintf("rename %s collides with another field of the same struct", f.Rename))
			continue
		}
		out[p.Name] = f.Rename
		w.fixes.Applied(f, "rename")
	}
	return out
}

// goName names the field of a property: its rename, else its natural
// name, numbered when taken.
func goName(p load.Property, rename string, used map[string]bool) string {
	if rename != "" {
		return rename // fields marks renames used before naming any field
	}
	name := naturalName(p)
	for n := 2; used[name]; n++ {
		name = fmt.Sprintf("%s%d", strings.TrimRight(name, "0123456789"), n)
	}
	used[name] = true
	return name
}

// replacedType is the field type of an override's `type:`.
func replacedType(t string) *TypeRef {
	switch t {
	case "map[string]string":
		return &TypeRef{Kind: Map, Elem: &TypeRef{Kind: String}}
	case "string":
		return &TypeRef{Kind: String}
	case "integer":
		return &TypeRef{Kind: Int64}
	case "number":
		return &TypeRef{Kind: Float64}
	case "boolean":
		return &TypeRef{Kind: Bool}
	case "[]string":
		return &TypeRef{Kind: Slice, Elem: &TypeRef{Kind: String}}
	}
	return &TypeRef{Kind: JSON}
}

// requiredMarker is the marker of a spec field: always optional. A value
// the swagger requires may be set in the spec, by a reference (…Ref) or by
// spec.valuesFrom, which a CRD's required list cannot say; the admission
// webhook checks that it is one of them (descriptor.Property.Required) and
// the reconciler checks the resolved body before it is sent.
func requiredMarker(bool) []string {
	return []string{"optional"}
}

// withRequired adds to a field's documentation that the PUT body requires
// it, and how it may be given.
func withRequired(doc string) string {
	line := "Required: set here, by a reference, or by spec.valuesFrom."
	if strings.TrimSpace(doc) == "" {
		return line
	}
	return strings.TrimRight(doc, "\n") + "\n\n" + line
}

// withDefault adds a configured default to a field's documentation.
func withDefault(doc string, e classify.Entry) string {
	line := fmt.Sprintf("Defaults to %s when left out (set by the defaulting webhook; specs/armature.yaml: %s).", e.Default, e.Override.Why("default"))
	if strings.TrimSpace(doc) == "" {
		return line
	}
	return strings.TrimRight(doc, "\n") + "\n\n" + line
}

// checkDefault reports a default outside a closed enum.
func (b *pkgBuilder) checkDefault(w walk, fix *override.Fix, e classify.Entry, t *TypeRef) {
	if t.Kind != EnumRef || !t.Enum.Closed {
		return
	}
	var v string
	if json.Unmarshal([]byte(e.Default), &v) == nil {
		for _, ev := range t.Enum.Values {
			if ev.Value == v {
				return
			}
		}
	}
	var vals []string
	for _, ev := range t.Enum.Values {
		vals = append(vals, ev.Value)
	}
	w.fixes.Problem(fix, "default", fmt.Sprintf("default %s is not one of the enum's values (%s)", e.Default, strings.Join(vals, ", ")))
}

// closedWithoutFix reports whether the swagger declares an enum closed.
func (b *pkgBuilder) closedWithoutFix(s load.Schema) bool {
	mas, _ := load.ExtMap(s.Extensions, "x-ms-enum")["modelAsString"].(bool)
	return !mas
}

// shareNamesFirst gives the plain names (Settings before Settings2) to the
// structs and enums every kind shares, and the numbered ones to the variants
// overrides made, whatever order the kinds were built in: an override on
// one kind never renames a type another kind uses.
func (b *pkgBuilder) shareNamesFirst() {
	for _, group := range b.byName {
		names := make([]string, len(group))
		for i, st := range group {
			names[i] = st.Name
		}
		ordered := append([]*Struct(nil), group...)
		sort.SliceStable(ordered, func(i, j int) bool { return !ordered[i].specific && ordered[j].specific })
		for i, st := range ordered {
			st.Name = names[i]
		}
	}
	for _, group := range b.enums {
		names := make([]string, len(group))
		for i, e := range group {
			names[i] = e.Name
		}
		ordered := append([]*Enum(nil), group...)
		sort.SliceStable(ordered, func(i, j int) bool { return !ordered[i].specific && ordered[j].specific })
		for i, e := range ordered {
			for v := range e.Values {
				e.Values[v].GoName = names[i] + strings.TrimPrefix(e.Values[v].GoName, e.Name)
			}
			e.Name = names[i]
		}
	}
}
