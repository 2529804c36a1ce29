package model

import "github.com/armature-dev/armature/runtime/descriptor"

// RequiredPaths are the table paths of the spec fields the PUT body
// requires (Field.Required), in spec order: what a CRD's required lists
// said before a reference or spec.valuesFrom could supply a value. The
// Descriptor lists them (Property.Required), admission and the reconciler
// check them, and so does the offline check of the examples. Found by
// walking the spec's types, each struct once per path.
func (k *Kind) RequiredPaths() []descriptor.Path {
	var out []descriptor.Path
	var walk func(s *Struct, p descriptor.Path, onPath map[*Struct]bool)
	walk = func(s *Struct, p descriptor.Path, onPath map[*Struct]bool) {
		if onPath[s] {
			return
		}
		onPath[s] = true
		defer delete(onPath, s)
		for _, f := range s.Fields {
			if len(p) == 0 && IsOperatorField(f.JSONName) {
				continue
			}
			fp := p.Child(f.JSONName)
			if f.Required {
				out = append(out, fp)
			}
			t := f.Type
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
	return out
}
