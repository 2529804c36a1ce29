package refs

import (
	"slices"
	"strings"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// apply applies the references entries of a kind to what the rules found,
// path by path: the detected references and the strings of the spec. It
// returns the references and those an entry removed.
func apply(w *walker, fixes *override.RefKind) (refs, removed []Reference) {
	if fixes == nil {
		return w.found, nil
	}
	found := append([]Reference(nil), w.found...)
	at := map[string]int{}
	paths := append([]descriptor.Path(nil), w.strings...)
	for i, r := range found {
		at[r.Path.String()] = i
		paths = append(paths, r.Path)
	}
	slices.SortFunc(paths, descriptor.Path.Compare)
	paths = slices.CompactFunc(paths, descriptor.Path.Equal)
	drop := map[string]bool{}
	for _, p := range paths {
		var adds, removes []*config.Reference
		for _, r := range fixes.At(p) {
			if r.Remove {
				removes = append(removes, r)
			} else {
				adds = append(adds, r)
			}
		}
		if len(adds) > 0 && len(removes) > 0 {
			fixes.Problem(removes[0], p, "remove conflicts with add of "+adds[0].Entry())
			continue
		}
		i, detected := at[p.String()]
		for _, r := range removes {
			if detected && !drop[p.String()] {
				drop[p.String()] = true
				gone := found[i]
				gone.Note = strings.TrimSpace(r.Because)
				removed = append(removed, gone)
				fixes.Applied(r)
			}
		}
		for _, r := range adds {
			if !detected {
				at[p.String()] = len(found)
				found = append(found, added(w.t, p, r, fixes.Cite(r)))
				fixes.Applied(r)
				detected, i = true, len(found)-1
				continue
			}
			if t := dedupSorted(r.Targets); len(t) > 0 && !slices.Equal(t, found[i].Targets) {
				found[i].Targets, found[i].TargetsFrom = t, TargetsFromOverride
				found[i].Note += "; targets by " + fixes.Cite(r) + ": " + strings.TrimSpace(r.Because)
				fixes.Applied(r)
			}
		}
	}
	for _, r := range found {
		if !drop[r.Path.String()] {
			refs = append(refs, r)
		}
	}
	return refs, removed
}

// added is the reference an add entry makes at a string path.
func added(t *classify.Table, p descriptor.Path, r *config.Reference, cite string) Reference {
	ref := Reference{Path: p, Shape: Value, Rule: RuleOverride, Evidence: cite, Note: strings.TrimSpace(r.Because)}
	if tg := dedupSorted(r.Targets); len(tg) > 0 {
		ref.Targets, ref.TargetsFrom = tg, TargetsFromOverride
	}
	holder := p
	if p.Last() == descriptor.Items {
		holder = p.Parent()
	}
	if e, ok := t.Entry(holder); ok {
		ref.Class = e.Class
	}
	return ref
}
