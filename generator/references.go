package generator

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/generator/refs"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// References in the generated types (docs/references.md): beside each
// spec field X that generator/refs finds holding an ARM id, the struct
// that holds X gets XRef (core.ObjectReference: an object of the operator
// in the same namespace), or XRefs for a map keyed by ids; the webhook
// refuses X and XRef together, and takes XRef for a required X (no CEL
// rules: on the structs inside lists, Network's application gateway, their
// estimated cost passes the apiserver's budget). A struct is shared by every place of the package's specs
// that uses it, so the kinds' descriptor References list every path where
// a struct with a ref field appears: the reconciler resolves whatever the
// CRD accepts. Not emitted: references to a part of the object itself
// (self), lists of ids (a path ending in [*]), and references whose targets
// are no generated kind.

// refField is a ref field added to a struct: the field it stands beside,
// the targets ("group/Kind", empty: any), whether X is a map.
type refField struct {
	x        string
	isMap    bool
	targets  []string
	required bool
}

// RefStats counts what emitReferences did.
type RefStats struct {
	Emitted, Self, List, NoTarget, Clash int
}

// emitReferences detects the references of every analysis's kinds and
// adds the ref fields, rules and descriptor References to their models.
func emitReferences(a *Analysis, cfg *override.Refs) (RefStats, []error) {
	var st RefStats
	var errs []error
	kinds := map[string]*model.Kind{} // ARM type (lower case) → a generated kind
	for _, an := range append([]*Analysis{a}, a.Older...) {
		for t, k := range an.Model.Kinds {
			if _, ok := kinds[t]; !ok {
				kinds[t] = k
			}
		}
	}
	for _, an := range append([]*Analysis{a}, a.Older...) {
		f := refs.NewFinder(an.Loader)
		for _, p := range an.Model.Packages {
			added := map[*model.Struct][]refField{}
			for _, k := range p.Kinds {
				kr, err := f.Kind(k, cfg.For(refs.TargetOf(k)))
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: references: %w", k.Resource.ARMType, err))
				}
				for _, r := range kr.References {
					addRef(k, r, kinds, added, &st)
				}
			}
			for _, k := range p.Kinds {
				k.References = kindReferences(k, added)
			}
		}
	}
	return st, errs
}

// addRef adds the ref field of one detected reference to its holder.
func addRef(k *model.Kind, r refs.Reference, kinds map[string]*model.Kind, added map[*model.Struct][]refField, st *RefStats) {
	switch {
	case r.Self:
		st.Self++
		return
	case r.Path.Last() == descriptor.Items:
		st.List++
		return
	}
	var targets []string
	for _, t := range r.Targets {
		if tk := kinds[strings.ToLower(t)]; tk != nil {
			targets = append(targets, tk.Package.Group+"/"+tk.Name)
		}
	}
	if len(r.Targets) > 0 && len(targets) == 0 {
		st.NoTarget++
		return
	}
	holder := structAt(k.Spec, r.Path.Parent())
	if holder == nil {
		return
	}
	x := r.Path.Last()
	isMap := r.Shape == refs.Key
	for i, rf := range added[holder] {
		if rf.x == x {
			if len(rf.targets) > 0 {
				added[holder][i].targets = union(rf.targets, targets)
			}
			if len(targets) == 0 {
				added[holder][i].targets = nil
			}
			return
		}
	}
	name := descriptor.Reference{Path: r.Path, Map: isMap}.RefField()
	var xf *model.Field
	for _, f := range holder.Fields {
		if f.JSONName == name {
			st.Clash++
			return
		}
		if f.JSONName == x {
			xf = f
		}
	}
	if xf == nil {
		return
	}
	st.Emitted++
	added[holder] = append(added[holder], refField{x: x, isMap: isMap, targets: targets, required: xf.Required && !isMap})
	ref := &model.Field{GoName: xf.GoName + strings.TrimPrefix(name, x), JSONName: name, Type: &model.TypeRef{Kind: model.ObjectRef}}
	if isMap {
		ref.Type = &model.TypeRef{Kind: model.Slice, Elem: &model.TypeRef{Kind: model.ObjectRef}}
		ref.Doc = fmt.Sprintf("%s names objects of the operator in this namespace whose ARM ids are keys of %s (docs/references.md).", name, x)
		ref.Markers = []string{"listType=atomic"}
	} else {
		ref.Doc = fmt.Sprintf("%s names an object of the operator in this namespace whose ARM id (status.id) is sent as %s; set one of the two (docs/references.md).", name, x)
	}
	if len(targets) > 0 {
		ref.Doc += " Kinds: " + strings.Join(targets, ", ") + "."
	}
	if r.Class == classify.CreateOnly {
		// No CEL transition rule: a struct inside a list is uncorrelatable
		// for oldSelf. The webhook refuses the change (its createOnly
		// check of references).
		ref.Doc += " Create-only, as " + x + " is."
	}
	at := slices.IndexFunc(holder.Fields, func(f *model.Field) bool { return f == xf })
	holder.Fields = slices.Insert(holder.Fields, at+1, ref)
}

// structAt follows a body path from the spec struct to the struct at its
// end (Items: the element of a slice); nil when the path leaves structs.
func structAt(s *model.Struct, p descriptor.Path) *model.Struct {
	t := &model.TypeRef{Kind: model.StructRef, Struct: s}
	for _, seg := range p {
		if seg == descriptor.Items {
			if t.Kind != model.Slice {
				return nil
			}
			t = t.Elem
			continue
		}
		if t.Kind != model.StructRef {
			return nil
		}
		var next *model.TypeRef
		for _, f := range t.Struct.Fields {
			if f.JSONName == seg {
				next = f.Type
			}
		}
		if next == nil {
			return nil
		}
		t = next
	}
	if t.Kind != model.StructRef {
		return nil
	}
	return t.Struct
}

// kindReferences lists every path of k's spec where a struct with ref
// fields appears, by walking the spec's types (each struct once per path;
// recursion is cut at its second visit).
func kindReferences(k *model.Kind, added map[*model.Struct][]refField) []descriptor.Reference {
	if len(added) == 0 {
		return nil
	}
	var out []descriptor.Reference
	var walk func(s *model.Struct, p descriptor.Path, onPath map[*model.Struct]bool)
	walk = func(s *model.Struct, p descriptor.Path, onPath map[*model.Struct]bool) {
		if onPath[s] {
			return
		}
		onPath[s] = true
		defer delete(onPath, s)
		for _, rf := range added[s] {
			out = append(out, descriptor.Reference{Path: p.Child(rf.x), Map: rf.isMap, Targets: rf.targets, Required: rf.required})
		}
		for _, f := range s.Fields {
			if len(p) == 0 && model.IsOperatorField(f.JSONName) {
				continue
			}
			t, fp := f.Type, p.Child(f.JSONName)
			if t.Kind == model.Slice {
				t, fp = t.Elem, fp.Item()
			}
			if t.Kind == model.StructRef {
				walk(t.Struct, fp, onPath)
			}
		}
	}
	walk(k.Spec, nil, map[*model.Struct]bool{})
	sort.Slice(out, func(i, j int) bool { return out[i].Path.Compare(out[j].Path) < 0 })
	return out
}

func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
