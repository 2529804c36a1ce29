package webhook

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// Details of a required value that is missing.
const (
	requiredDetail    = "the ARM API requires it: set it, or supply it with spec.valuesFrom (path: %s)"
	requiredRefDetail = "the ARM API requires it: set it, or %s (an object of this namespace whose id is sent), or supply it with spec.valuesFrom (path: %s)"
)

// supplied stands in for a value a reference or spec.valuesFrom supplies.
const supplied = "<supplied>"

// required refuses a spec that leaves out a value the PUT body requires
// (descriptor.Property.Required) where neither a reference nor a
// spec.valuesFrom entry supplies it: the CRD cannot say "set or sourced".
// The reconciler checks the resolved body again before it sends it.
func (c *checker) required(sp *field.Path, spec any) {
	body, _ := cloneJSON(spec).(map[string]any)
	if body == nil {
		body = map[string]any{}
	}
	refs := map[string]string{} // table path → its reference field
	for _, r := range c.d.References {
		if r.Map {
			continue
		}
		refField, x := r.RefField(), r.Path.Last()
		refs[r.Path.String()] = refField
		holdersAt(r.Path.Parent(), sp, body, func(_ *field.Path, m map[string]any) {
			if _, set := lookupSet(m, refField); set {
				if _, has := lookupSet(m, x); !has {
					m[x] = supplied
				}
			}
		})
	}
	list, _ := body["valuesFrom"].([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		p, err := descriptor.ParsePath(str(m, "path"))
		if err != nil || len(p) == 0 {
			continue // valuesFrom reports it
		}
		p.Set(body, supplied)
	}
	for _, p := range c.d.RequiredMissing(body) {
		fp := p.FieldPath(sp)
		if ref, ok := refs[p.Table().String()]; ok {
			c.errs = append(c.errs, field.Required(fp, fmt.Sprintf(requiredRefDetail, p.Parent().Child(ref).FieldPath(sp), p)))
			continue
		}
		c.errs = append(c.errs, field.Required(fp, fmt.Sprintf(requiredDetail, p)))
	}
}

// cloneJSON copies the objects and arrays of decoded JSON.
func cloneJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = cloneJSON(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = cloneJSON(x)
		}
		return out
	}
	return v
}
