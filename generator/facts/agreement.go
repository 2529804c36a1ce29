package facts

import (
	"sort"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// Disagreement is a property whose class the facts contradict.
type Disagreement struct {
	ARMType, Path string
	// Class is the class given; Verdict what the facts say.
	Class   string
	Verdict Verdict
	Cite    string
}

// Agreement counts, for one provider, the properties the facts judge
// (an unconditional ForceNew, or an in-place update) and how many of them
// a classification agrees with: createOnly where Azure cannot update in
// place, anything else where it can.
type Agreement struct {
	Provider string
	// Judged and Agree count properties; FalseCreateOnly counts createOnly
	// properties Azure updates in place, Missed properties Azure cannot
	// update that are not createOnly.
	Judged, Agree, FalseCreateOnly, Missed int
	Disagreements                          []Disagreement
}

// Compare measures classes against the facts, per provider. classes maps
// an ARM type to property paths (as `armature inspect` prints them) to
// classes; only properties of the request body count (readOnly ones are
// status, and the facts judge what a user sets), secrets excepted.
func (t *Table) Compare(classes map[string]map[string]string) []Agreement {
	by := map[string]*Agreement{}
	for armType, props := range classes {
		answers := t.Paths(armType)
		lower := make(map[string]string, len(props))
		for p, c := range props {
			lower[strings.ToLower(p)] = c
		}
		for p, ans := range answers {
			if ans.Verdict != CreateOnly && ans.Verdict != InPlace {
				continue
			}
			c, ok := lower[p]
			if !ok || c == string(descriptor.ReadOnly) || c == string(descriptor.Secret) {
				// readOnly is status; a secret's spec holds a reference to
				// a Kubernetes Secret, which a class cannot freeze.
				continue
			}
			prov, _, _ := strings.Cut(armType, "/")
			a := by[strings.ToLower(prov)]
			if a == nil {
				a = &Agreement{Provider: prov}
				by[strings.ToLower(prov)] = a
			}
			a.Judged++
			createOnly := c == string(descriptor.CreateOnly)
			switch {
			case createOnly == (ans.Verdict == CreateOnly):
				a.Agree++
				continue
			case createOnly:
				a.FalseCreateOnly++
			default:
				a.Missed++
			}
			a.Disagreements = append(a.Disagreements, Disagreement{ARMType: armType, Path: originalPath(props, p), Class: c, Verdict: ans.Verdict, Cite: ans.Cite()})
		}
	}
	out := make([]Agreement, 0, len(by))
	for _, a := range by {
		sort.Slice(a.Disagreements, func(i, j int) bool {
			x, y := a.Disagreements[i], a.Disagreements[j]
			if x.ARMType != y.ARMType {
				return x.ARMType < y.ARMType
			}
			return x.Path < y.Path
		})
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Provider) < strings.ToLower(out[j].Provider) })
	return out
}

// originalPath finds the path as the classification spells it.
func originalPath(props map[string]string, lower string) string {
	for p := range props {
		if strings.ToLower(p) == lower {
			return p
		}
	}
	return lower
}
