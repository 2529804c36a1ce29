package webhook

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// Details of valuesFrom errors.
const (
	valuesOneDetail     = "set exactly one of from, configMapKeyRef and secretKeyRef"
	valuesPathDetail    = "%s has no property %s that a spec may set (a path from the ARM body root, as `armature inspect --properties` prints it)"
	valuesSecretDetail  = "a Secret's value goes only to a secret property; %s is not one (use configMapKeyRef or from)"
	valuesIndexDetail   = "%s: name one property; [*] and .* stand for many"
	valuesFromDetail    = "must be {kind, name, field} (group optional): a field of another object in this namespace"
	valuesReadOnlyField = "%s is read-only: Azure sets it, a spec cannot"
	valuesSourceDetail  = "%s has no %s (a field of the object: status.<property>, status.id, spec.<property>, as `armature inspect --properties --kind %s` prints the properties)"
)

// valuesFrom checks spec.valuesFrom: one source per entry, a path the
// kind's spec may set, a Secret only for a secret property. The source
// object and its field are the reconciler's to find (it waits for them).
func (c *checker) valuesFrom(sp *field.Path, spec any) {
	v, _ := lookup(spec, "valuesFrom")
	list, _ := v.([]any)
	for i, item := range list {
		m, _ := item.(map[string]any)
		fp := sp.Child("valuesFrom").Index(i)
		n := 0
		for _, k := range []string{"from", "configMapKeyRef", "secretKeyRef"} {
			if _, ok := lookupSet(m, k); ok {
				n++
			}
		}
		if n != 1 {
			c.errs = append(c.errs, field.Invalid(fp, "", valuesOneDetail))
		}
		if from, ok := lookupSet(m, "from"); ok {
			fm, _ := from.(map[string]any)
			if str(fm, "kind") == "" || str(fm, "name") == "" || str(fm, "field") == "" {
				c.errs = append(c.errs, field.Invalid(fp.Child("from"), from, valuesFromDetail))
			} else if detail := c.sourceField(str(fm, "group"), str(fm, "kind"), str(fm, "field")); detail != "" {
				c.errs = append(c.errs, field.Invalid(fp.Child("from", "field"), str(fm, "field"), detail))
			}
		}
		path := str(m, "path")
		p, err := descriptor.ParsePath(path)
		if err != nil || len(p) == 0 {
			c.errs = append(c.errs, field.Invalid(fp.Child("path"), path, fmt.Sprintf(ignoreParseDetail, err)))
			continue
		}
		class, detail := c.settable(p)
		if detail != "" {
			c.errs = append(c.errs, field.Invalid(fp.Child("path"), path, detail))
			continue
		}
		if _, secret := lookupSet(m, "secretKeyRef"); secret && class != descriptor.Secret {
			c.errs = append(c.errs, field.Invalid(fp.Child("secretKeyRef"), "", fmt.Sprintf(valuesSecretDetail, path)))
		}
	}
}

// settable returns the class of a path a spec may set, or why it is not.
func (c *checker) settable(p descriptor.Path) (descriptor.Class, string) {
	var table descriptor.Path
	var class descriptor.Class
	for i, seg := range p {
		if descriptor.IsWildcard(seg) {
			return "", fmt.Sprintf(valuesIndexDetail, p[:i+1])
		}
		if len(table) > 0 && c.d.Open(table) {
			return descriptor.Writable, ""
		}
		var known bool
		table, class, known = c.d.Child(table, seg)
		if !known {
			return "", fmt.Sprintf(valuesPathDetail, c.d.Kind, p[:i+1])
		}
		if class == descriptor.ReadOnly {
			return "", fmt.Sprintf(valuesReadOnlyField, p[:i+1])
		}
	}
	return class, ""
}

// sourceField checks a valuesFrom source's field against the source kind's
// properties (any served version): status.id, status.<property> and
// spec.<property>, naming the first segment no version has. A kind this
// webhook does not serve, or a field in a syntax the property paths do not
// parse (selectors), is the reconciler's to report.
func (c *checker) sourceField(group, kind, fieldPath string) string {
	if c.served == nil {
		return ""
	}
	ds := c.served(group, kind)
	if len(ds) == 0 {
		return ""
	}
	root, rest, _ := strings.Cut(fieldPath, ".")
	if root != "status" && root != "spec" || rest == "" {
		return fmt.Sprintf(valuesSourceDetail, ds[0].Kind, fieldPath, ds[0].Kind)
	}
	p, err := descriptor.ParsePath(rest)
	if err != nil {
		return ""
	}
	if root == "status" && (p[0] == "id" || p[0] == "conditions" || p[0] == "observedGeneration") {
		return ""
	}
	switch p[0] {
	case fieldAzureName, fieldOwner, fieldResourceID, fieldOperatorSpec:
		if root == "spec" {
			return ""
		}
	}
	var deepest descriptor.Path
	for _, d := range ds {
		n := knownPrefix(d, p.Table())
		if n == len(p) {
			return ""
		}
		if n+1 > len(deepest) {
			deepest = p[:n+1]
		}
	}
	return fmt.Sprintf(valuesSourceDetail, ds[0].Kind, root+"."+deepest.String(), ds[0].Kind)
}

// knownPrefix is how many segments of a table path a Descriptor knows: all
// of them below a free-form object, and below a read-only one (the
// Descriptor's table stops at a read-only property whose subtree goes
// through a list or a map, leaving none of it).
func knownPrefix(d *descriptor.Descriptor, p descriptor.Path) int {
	var table descriptor.Path
	var class descriptor.Class
	for i, seg := range p {
		if len(table) > 0 && (d.Open(table) || class == descriptor.ReadOnly && !hasBelow(d, table)) {
			return len(p)
		}
		var known bool
		if table, class, known = d.Child(table, seg); !known {
			return i
		}
	}
	return len(p)
}

// hasBelow reports whether the Descriptor lists a property below table.
func hasBelow(d *descriptor.Descriptor, table descriptor.Path) bool {
	return slices.ContainsFunc(d.Properties, func(p descriptor.Property) bool { return p.Path.Under(table) })
}
