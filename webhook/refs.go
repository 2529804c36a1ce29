package webhook

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// Details of the reference errors.
const (
	refBothDetail   = "set one of %s and %s, not both"
	refShape        = "{kind: <Kind>, name: <object in this namespace>} (group optional)"
	refShapeDetail  = "must be " + refShape
	refTargetDetail = "a %s cannot be named here; allowed: %s"
)

// references checks the references to other objects (descriptor.Reference):
// a ref names kind and name; a field and its ref are not both set; the
// kind is one the field may hold (the swagger's allowedResources). A kind
// the operator does not serve, or an object that does not exist yet, is
// the reconciler's to report: objects may be applied in any order.
func (c *checker) references(sp *field.Path, spec any) {
	for _, r := range c.d.References {
		refField, x := r.RefField(), r.Path.Last()
		holdersAt(r.Path.Parent(), sp, spec, func(p *field.Path, m map[string]any) {
			ref, ok := lookupSet(m, refField)
			if !ok {
				return // a required field left out: c.required
			}
			if _, both := lookupSet(m, x); both {
				c.errs = append(c.errs, field.Invalid(p.Child(refField), "", fmt.Sprintf(refBothDetail, p.Child(x), p.Child(refField))))
			}
			if !r.Map {
				c.ref(r, p.Child(refField), ref)
				return
			}
			list, isList := ref.([]any)
			if !isList {
				c.errs = append(c.errs, field.Invalid(p.Child(refField), ref, "must be a list of "+refShape))
				return
			}
			for i, item := range list {
				c.ref(r, p.Child(refField).Index(i), item)
			}
		})
	}
}

func (c *checker) ref(r descriptor.Reference, p *field.Path, v any) {
	m, isMap := v.(map[string]any)
	kind, name := str(m, "kind"), str(m, "name")
	if !isMap || kind == "" || name == "" {
		c.errs = append(c.errs, field.Invalid(p, v, refShapeDetail))
		return
	}
	if len(r.Targets) == 0 {
		return
	}
	group := str(m, "group")
	for _, t := range r.Targets {
		g, k, _ := strings.Cut(t, "/")
		if k == kind && (group == "" || strings.EqualFold(g, group)) {
			return
		}
	}
	c.errs = append(c.errs, field.Invalid(p.Child("kind"), kind, fmt.Sprintf(refTargetDetail, kind, strings.Join(r.Targets, ", "))))
}

// holdersAt calls f with every map at path below v (Items: every item of
// an array) and its field path.
func holdersAt(path descriptor.Path, p *field.Path, v any, f func(*field.Path, map[string]any)) {
	if len(path) == 0 {
		if m, ok := v.(map[string]any); ok {
			f(p, m)
		}
		return
	}
	each(path[0], p, v, func(cp *field.Path, cv any) { holdersAt(path[1:], cp, cv, f) })
}

// createOnlyRefs refuses, on update, a changed reference whose field is
// create-only: the object it names gives the id the resource was created
// with. A reference and its field are compared at the same places (the
// holders of each reference, by index in lists).
func (c *checker) createOnlyRefs(sp *field.Path, old, cur any) {
	for _, r := range c.d.References {
		if class, known := c.d.ClassOf(r.Path.Table()); !known || class != descriptor.CreateOnly {
			continue
		}
		refField := r.RefField()
		was := map[string]any{}
		holdersAt(r.Path.Parent(), sp, old, func(p *field.Path, m map[string]any) { was[p.String()] = m[refField] })
		holdersAt(r.Path.Parent(), sp, cur, func(p *field.Path, m map[string]any) {
			before, existed := was[p.String()]
			if existed && !equal(before, m[refField]) {
				c.errs = append(c.errs, field.Forbidden(p.Child(refField), fmt.Sprintf(createOnlyDetail, render(before, before != nil, false), render(m[refField], m[refField] != nil, false))))
			}
		})
	}
}
