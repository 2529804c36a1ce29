package inspect

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/generator/refs"
)

// References detects the fields of every kind's spec that hold an ARM
// resource id, with the references entries of cfg (nil for none): the kinds
// of the newest api-versions, then those only older api-versions have (the
// Private DNS kinds of Microsoft.Network 2020-06-01 beside Network's
// 2024-01-01); an older version of a kind is not reported again. Entries
// that do not apply are *config.Error values in the report's Errors.
func References(a *generator.Analysis, cfg *config.Config) *refs.Report {
	var set *override.Refs
	if cfg != nil && len(cfg.References) > 0 {
		set = override.NewRefs(cfg.ConfigFile(), cfg.References)
	}
	rep := &refs.Report{Kinds: []refs.Kind{}}
	seen := map[string]bool{}
	for _, an := range append([]*generator.Analysis{a}, a.Older...) {
		f := refs.NewFinder(an.Loader)
		for _, p := range an.Model.Packages {
			for _, k := range p.Kinds {
				if key := p.Group + "/" + k.Name; !seen[key] {
					seen[key] = true
					rep.Add(f, k, set)
				}
			}
		}
	}
	rep.Errors = append(rep.Errors, set.Errors()...)
	return rep
}

// OnlyKind keeps the kinds of a report named kind (case-insensitive); ""
// keeps every kind.
func OnlyKind(rep *refs.Report, kind string) *refs.Report {
	if kind == "" {
		return rep
	}
	out := &refs.Report{Kinds: []refs.Kind{}, Errors: rep.Errors}
	for _, k := range rep.Kinds {
		if strings.EqualFold(k.Kind, kind) {
			out.Kinds = append(out.Kinds, k)
		}
	}
	return out
}

// ReferencesTable writes the references per kind for people: path, rule,
// targets, class, then what the rule saw and where. Kinds without a
// reference are left out unless kind names them. The last lines count
// the references by rule and list the problems.
func ReferencesTable(w io.Writer, rep *refs.Report, kind string) error {
	rep = OnlyKind(rep, kind)
	for _, k := range rep.Kinds {
		if len(k.References) == 0 && len(k.Removed) == 0 && kind == "" {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s)\n", k.Kind, k.ARMType)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, r := range k.References {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s [%s]\n", refPath(r), r.Rule, targets(r), r.Class, r.Note, r.Evidence)
		}
		for _, r := range k.Removed {
			fmt.Fprintf(tw, "  %s\tremoved\t%s\t%s\t%s [was %s: %s]\n", refPath(r), targets(r), r.Class, r.Note, r.Rule, r.Evidence)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	total, by := rep.Count()
	kinds := 0
	for _, k := range rep.Kinds {
		if len(k.References) > 0 {
			kinds++
		}
	}
	fmt.Fprintf(w, "\n%d references in %d of %d kinds%s\n", total, kinds, len(rep.Kinds), byRule(by))
	if len(rep.Errors) > 0 {
		fmt.Fprintf(w, "%d problems:\n", len(rep.Errors))
		for _, err := range rep.Errors {
			fmt.Fprintf(w, "  %v\n", err)
		}
	}
	return nil
}

// refPath is the path, with `(keys)` for a map keyed by ids.
func refPath(r refs.Reference) string {
	if r.Shape == refs.Key {
		return r.Path.String() + " (keys)"
	}
	return r.Path.String()
}

// targets are the target types (`→ A, B`, `(self)` for a part of the
// resource itself), or "-".
func targets(r refs.Reference) string {
	if len(r.Targets) == 0 {
		return "-"
	}
	s := "→ " + strings.Join(r.Targets, ", ")
	if r.Self {
		s += " (self)"
	}
	return s
}

// byRule writes counts per rule in the rules' order: `: arm-id-details 3,
// format 1`.
func byRule(by map[string]int) string {
	var parts []string
	seen := map[string]bool{}
	for _, rule := range refs.Rules {
		seen[rule] = true
		if by[rule] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", rule, by[rule]))
		}
	}
	var other []string
	for rule := range by {
		if !seen[rule] {
			other = append(other, rule)
		}
	}
	sort.Strings(other)
	for _, rule := range other {
		parts = append(parts, fmt.Sprintf("%s %d", rule, by[rule]))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
