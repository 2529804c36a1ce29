package webhook

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// The operator's spec.operatorSpec (api/core OperatorSpec).
const (
	fieldOperatorSpec  = "operatorSpec"
	fieldIgnoreChanges = "ignoreChanges"
)

// Details of ignoreChanges errors.
const (
	ignoreParseDetail    = "not a property path (%v); write it as `armature inspect --properties` does, from the ARM body root: tags, properties.agentPoolProfiles[*].count"
	ignoreIndexDetail    = "%s names one array item by its index; use [*] (every item): an index names another item once items move"
	ignoreUnknownDetail  = "%s has no property %s: ignoreChanges names paths of the spec from the ARM body root (properties.x, tags), as `armature inspect --properties` lists them"
	ignoreReadOnlyDetail = "%s is read-only: Azure sets it and the operator never sends it, so there is no change to ignore"
	ignoreScalarDetail   = "%s is a %s: there is nothing below it to name"
	ignoreOperatorDetail = "%s is an operator field, never sent to Azure: there is no change to ignore"
)

// ignoreChanges checks each entry of spec.operatorSpec.ignoreChanges
// against the kind's property table: a path the kind has (below a
// free-form value any key goes), not read-only; `[*]` and `*` stand for
// every item of an array and every value of a map.
func (c *checker) ignoreChanges(sp *field.Path, spec any) {
	v, _ := lookup(spec, fieldOperatorSpec)
	os, _ := v.(map[string]any)
	raw, _ := os[fieldIgnoreChanges].([]any)
	fp := sp.Child(fieldOperatorSpec, fieldIgnoreChanges)
	for i, v := range raw {
		s, ok := v.(string)
		if !ok {
			continue // the CRD schema says string
		}
		if detail := c.ignorePath(s); detail != "" {
			c.errs = append(c.errs, field.Invalid(fp.Index(i), s, detail))
		}
	}
}

// ignorePath returns why a path cannot be ignored, or "".
func (c *checker) ignorePath(s string) string {
	p, err := descriptor.ParsePath(s)
	switch {
	case err != nil:
		return fmt.Sprintf(ignoreParseDetail, err)
	case len(p) == 0:
		return fmt.Sprintf(ignoreParseDetail, "empty")
	}
	switch p[0] {
	case fieldAzureName, fieldOwner, fieldResourceID, fieldOperatorSpec:
		return fmt.Sprintf(ignoreOperatorDetail, "spec."+p[0])
	}
	var table descriptor.Path
	for i, seg := range p {
		if descriptor.IsWildcard(seg) && seg != descriptor.Items && seg != descriptor.Values {
			return fmt.Sprintf(ignoreIndexDetail, p[:i+1])
		}
		if len(table) > 0 && c.d.Open(table) {
			if t := c.typeOf(table); t != "" && t != "object" && t != "array" {
				return fmt.Sprintf(ignoreScalarDetail, p[:i], t)
			}
			return "" // inside a free-form value or a map of scalars: any key
		}
		var class descriptor.Class
		var known bool
		if seg == descriptor.Items {
			// Items have no row of their own: the array's class, and
			// rows below them.
			class, known = c.d.ClassOf(table)
			table = table.Item()
			known = known && c.below(table)
		} else {
			table, class, known = c.d.Child(table, seg)
		}
		if !known {
			return fmt.Sprintf(ignoreUnknownDetail, c.d.Kind, p[:i+1])
		}
		if class == descriptor.ReadOnly {
			return fmt.Sprintf(ignoreReadOnlyDetail, p[:i+1])
		}
	}
	return ""
}

// typeOf is the JSON type of a table path ("" when the table does not say).
func (c *checker) typeOf(table descriptor.Path) string {
	for _, p := range c.d.Properties {
		if p.Path.Equal(table) {
			return p.Type
		}
	}
	return ""
}

// below reports whether the table has rows below a path.
func (c *checker) below(table descriptor.Path) bool {
	for _, p := range c.d.Properties {
		if p.Path.Under(table) {
			return true
		}
	}
	return false
}
