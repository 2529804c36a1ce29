package webhook

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Details of output errors.
const (
	outputRootDetail    = "a value is a path into this object's status (status.…) or, for a Secret, into the answer of one of the kind's list actions (%s): something Azure or the operator produced, never the spec's own values"
	outputCredDetail    = "%s is a credential Secret: outputs never write one"
	outputSecretDetail  = "%s answers secrets: write it to a Secret (spec.operatorSpec.secrets), never a ConfigMap"
	outputUnknownDetail = "%s has no property %s in status (the ARM body, as `armature inspect --properties` lists it)"
	outputTwiceDetail   = "%s %s key %s is written twice"
)

// statusMembers are the members of status that are not the ARM body.
var statusMembers = map[string]bool{"id": true, "conditions": true, "observedGeneration": true, "lastOperation": true, "reconcilePlan": true}

// outputs checks spec.operatorSpec.configMaps and secrets: each value a
// path into the object (a status path the kind's body has) or, for a
// Secret, into a list action's answer; a key written once.
func (c *checker) outputs(sp *field.Path, spec any) {
	v, _ := lookup(spec, fieldOperatorSpec)
	os, _ := v.(map[string]any)
	seen := map[string]bool{}
	for _, kind := range []string{"configMaps", "secrets"} {
		raw, _ := os[kind].([]any)
		fp := sp.Child(fieldOperatorSpec, kind)
		for i, item := range raw {
			m, _ := item.(map[string]any)
			name, key, value := str(m, "name"), str(m, "key"), str(m, "value")
			id := kind + "/" + name + "/" + key
			if seen[id] {
				c.errs = append(c.errs, field.Duplicate(fp.Index(i).Child("key"), fmt.Sprintf(outputTwiceDetail, kind, name, key)))
			}
			seen[id] = true
			if detail := c.outputPath(value, kind == "secrets"); detail != "" {
				c.errs = append(c.errs, field.Invalid(fp.Index(i).Child("value"), value, detail))
			}
			if kind == "secrets" && name == core.CredentialSecret {
				c.errs = append(c.errs, field.Invalid(fp.Index(i).Child("name"), name, fmt.Sprintf(outputCredDetail, name)))
			}
		}
	}
}

// outputPath returns why a value path cannot be written, or "".
func (c *checker) outputPath(value string, secret bool) string {
	first, rest, _ := strings.Cut(value, ".")
	root, _, _ := strings.Cut(first, "[")
	switch root {
	case "status":
		p, err := descriptor.ParsePath(rest)
		if err != nil || len(p) == 0 || statusMembers[p[0]] {
			return ""
		}
		return c.statusPath(p)
	}
	var lists []string
	for _, a := range c.d.Actions {
		if strings.HasPrefix(strings.ToLower(a.Name), "list") && (a.Request == nil || !a.Request.Required) {
			lists = append(lists, a.Name)
			if a.Name == root {
				if !secret {
					return fmt.Sprintf(outputSecretDetail, root)
				}
				return ""
			}
		}
	}
	names := "this kind has none"
	if len(lists) > 0 {
		names = strings.Join(lists, ", ")
	}
	return fmt.Sprintf(outputRootDetail, names)
}

// statusPath checks a path of the ARM body against the kind's table
// (indexes stand for every item; below a free-form value any key goes).
func (c *checker) statusPath(p descriptor.Path) string {
	var table descriptor.Path
	for i, seg := range p {
		if len(table) > 0 && c.d.Open(table) {
			return ""
		}
		var known bool
		if seg == descriptor.Items || descriptor.IsWildcard(seg) && seg != descriptor.Values {
			_, known = c.d.ClassOf(table)
			table = table.Item()
			known = known && (c.below(table) || c.d.Open(table.Parent()))
		} else {
			table, _, known = c.d.Child(table, seg)
		}
		if !known {
			return fmt.Sprintf(outputUnknownDetail, c.d.Kind, p[:i+1])
		}
	}
	return ""
}
