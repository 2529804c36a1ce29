package reconciler

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// A create-only refusal is Azure refusing to change, on a resource that
// exists, a property it sets only at create (runtime/arm rows marked
// CreateOnly: PropertyChangeNotAllowed, AccountPropertyCannotBeUpdated, …).
// The condition names the property in the spec, says it is create-only in
// Azure and how to recover, and armature_create_only_refusals_total counts
// it.

// pendingWrite is the write a reconcile is about to send: the last-applied
// body and the desired one (both as stored: secret values hashed). A
// create-only refusal with no property named falls back to what changed
// between them.
type pendingWrite struct{ last, applied string }

// changed returns the paths of the values that differ between the two
// bodies (the leaves of their merge patch), in text form; nil when nothing
// was applied before (a create, or a decision made against the live body).
func (w *pendingWrite) changed() []string {
	if w == nil || w.last == "" {
		return nil
	}
	patch, err := mergePatch(w.last, w.applied)
	if err != nil {
		return nil
	}
	var out []string
	var walk func(m map[string]any, p descriptor.Path)
	walk = func(m map[string]any, p descriptor.Path) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(sub, p.Child(k))
				continue
			}
			out = append(out, p.Child(k).String())
		}
	}
	walk(patch, nil)
	sort.Strings(out)
	return out
}

// refusedPaths maps the property a create-only refusal names (ARM's
// spelling: "dnsPrefix" for properties.dnsPrefix, "location") to spec
// paths from the body root. Without one, it is the paths the write
// changed.
func refusedPaths(d *descriptor.Descriptor, property string, changed []string) []string {
	if property == "" {
		return changed
	}
	if p, err := descriptor.ParsePath(property); err == nil {
		for _, try := range []descriptor.Path{p, append(descriptor.P("properties"), p...)} {
			if known(d, try) {
				return []string{try.String()}
			}
		}
	}
	// ARM's target is often relative to a nested object
	// ("windowsConfiguration.additionalUnattendContent" of
	// properties.osProfile): a changed path that ends with it.
	for _, c := range changed {
		if c == property || strings.HasSuffix(c, "."+property) {
			return []string{c}
		}
	}
	return []string{property}
}

// known reports whether a concrete body path is in the kind's property
// table (indexes read as items).
func known(d *descriptor.Descriptor, p descriptor.Path) bool {
	var table descriptor.Path
	for _, seg := range p {
		if descriptor.IsWildcard(seg) {
			table = table.Item()
			continue
		}
		tp, _, ok := d.Child(table, seg)
		if !ok {
			return false
		}
		table = tp
	}
	return len(p) > 0
}

// createOnlyMessage is the condition message of a create-only refusal:
// which spec property, that Azure sets it only at create, how to recover,
// and ARM's own words.
func createOnlyMessage(d *descriptor.Descriptor, paths []string, armMessage string) string {
	var b strings.Builder
	spec := make([]string, len(paths))
	for i, p := range paths {
		spec[i] = "spec." + p
	}
	switch len(paths) {
	case 0:
		fmt.Fprintf(&b, "Azure refuses to change a property of an existing %s that it sets only at create (ARM names none, and this write changed nothing known)", d.Kind)
	case 1:
		fmt.Fprintf(&b, "Azure refuses to change %s of an existing %s: it is create-only in Azure", spec[0], d.Kind)
	default:
		fmt.Fprintf(&b, "Azure refuses to change one of %s (what this write changed) of an existing %s: it is create-only in Azure", strings.Join(spec, ", "), d.Kind)
	}
	b.WriteString(". Restore the previous value, or delete and recreate the object")
	switch {
	case len(paths) == 0:
	case classedCreateOnly(d, paths[0]):
		b.WriteString("; armature classes it createOnly too: the admission webhook and the CRD's CEL rule refuse such edits where they are installed")
	default:
		what := paths[0]
		if len(paths) > 1 {
			what = "<the path Azure refuses>"
		}
		fmt.Fprintf(&b, "; to have admission refuse such edits, add to specs/armature.yaml: {kind: %s, path: %s, class: createOnly, because: …}", d.Kind, tablePath(what))
	}
	if armMessage != "" {
		b.WriteString(". ARM: " + armMessage)
	}
	return b.String()
}

// classedCreateOnly reports whether the descriptor already classes a path
// createOnly.
func classedCreateOnly(d *descriptor.Descriptor, path string) bool {
	p, err := descriptor.ParsePath(tablePath(path))
	if err != nil {
		return false
	}
	c, ok := d.ClassOf(p)
	return ok && c == descriptor.CreateOnly
}

// tablePath is a concrete path's table form (indexes as [*]), as
// specs/armature.yaml and `armature inspect` name properties.
func tablePath(path string) string {
	p, err := descriptor.ParsePath(path)
	if err != nil {
		return path
	}
	out := slices.Clone(p)
	for i, seg := range out {
		if seg != descriptor.Values && descriptor.IsWildcard(seg) {
			out[i] = descriptor.Items
		}
	}
	return out.String()
}
