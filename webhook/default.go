package webhook

import (
	"github.com/armature-dev/armature/runtime/descriptor"
	admissionv1 "k8s.io/api/admission/v1"
)

// setDefaults sets the Descriptor-driven and configured defaults on a
// decoded object in place; old is nil on create.
//
// spec.azureName, when absent, becomes the singleton name of a singleton
// kind, else on update the stored azureName (a client that drops the field,
// such as an apply without it, keeps the name the resource has in Azure),
// else metadata.name.
func (k *kind) setDefaults(op admissionv1.Operation, obj, old map[string]any, defs []pathDefault) {
	spec, ok := obj["spec"].(map[string]any)
	if !ok {
		spec = map[string]any{}
	}
	if str(spec, fieldAzureName) == "" {
		name := k.d.Singleton
		if name == "" && op == admissionv1.Update {
			name = str(old["spec"], fieldAzureName)
		}
		if name == "" {
			name = str(obj["metadata"], "name")
		}
		if name != "" {
			spec[fieldAzureName] = name
		}
	}
	for _, d := range defs {
		setDefault(spec, d.segs, d.value)
	}
	if len(spec) > 0 {
		obj["spec"] = spec
	}
}

// setDefault sets value at segs below v where it is absent, creating
// intermediate objects; `[*]` and `.*` segments apply to the items and
// values present.
func setDefault(v any, segs []string, value any) {
	if len(segs) == 0 {
		return
	}
	seg, rest := segs[0], segs[1:]
	switch seg {
	case descriptor.Items:
		a, _ := v.([]any)
		for _, item := range a {
			setDefault(item, rest, value)
		}
	case descriptor.Values:
		m, _ := v.(map[string]any)
		for _, e := range m {
			setDefault(e, rest, value)
		}
	default:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		cur, present := m[seg]
		switch {
		case len(rest) == 0:
			if !present {
				m[seg] = deepCopy(value)
			}
		case !present:
			// Only plain property segments can be created.
			if rest[0] == descriptor.Items || rest[0] == descriptor.Values {
				return
			}
			child := map[string]any{}
			setDefault(child, rest, value)
			m[seg] = child
		default:
			setDefault(cur, rest, value)
		}
	}
}
