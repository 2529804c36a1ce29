package model

import "github.com/armature-dev/armature/runtime/descriptor"

// OpenPaths are the table paths of the spec fields the CRD keeps as
// free-form JSON (a polymorphic body such as a CDN rule action's
// parameters, or a cut recursion): the Descriptor lists nothing below
// them, so that admission, the reconciler and the emulator accept what the
// CRD accepts there, whichever variant it is.
func (k *Kind) OpenPaths() []descriptor.Path {
	var out []descriptor.Path
	k.walkSpec(func(p descriptor.Path, f *Field) {
		if f.Type.Kind == JSON {
			out = append(out, p)
		}
	})
	return out
}

// RequiredPaths are the table paths of the spec fields the PUT body
// requires (Field.Required), in spec order: what a CRD's required lists
// said before a reference or spec.valuesFrom could supply a value. The
// Descriptor lists them (Property.Required), admission and the reconciler
// check them, and so does the offline check of the examples. Found by
// walking the spec's types, each struct once per path.
func (k *Kind) RequiredPaths() []descriptor.Path {
	var out []descriptor.Path
	k.walkSpec(func(p descriptor.Path, f *Field) {
		if f.Required {
			out = append(out, p)
		}
	})
	return out
}

// walkSpec calls f with every field of the spec's types and its table
// path (Items for list items, Values for map values), each struct once per
// path; the operator fields at the root are left out.
func (k *Kind) walkSpec(f func(descriptor.Path, *Field)) {
	var walk func(s *Struct, p descriptor.Path, onPath map[*Struct]bool)
	walk = func(s *Struct, p descriptor.Path, onPath map[*Struct]bool) {
		if onPath[s] {
			return
		}
		onPath[s] = true
		defer delete(onPath, s)
		for _, fl := range s.Fields {
			if len(p) == 0 && IsOperatorField(fl.JSONName) {
				continue
			}
			fp := p.Child(fl.JSONName)
			f(fp, fl)
			t := fl.Type
			for t.Kind == Slice || t.Kind == Map {
				if t.Kind == Slice {
					fp = fp.Item()
				} else {
					fp = fp.Value()
				}
				t = t.Elem
			}
			if t.Kind == StructRef {
				walk(t.Struct, fp, onPath)
			}
		}
	}
	walk(k.Spec, nil, map[*Struct]bool{})
}
