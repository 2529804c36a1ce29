package apidiff

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Why a change breaks, as the report says it.
const (
	whyResourceRemoved = "its CRD is gone: existing custom resources of the kind have no API to be served from"
	whyKindRenamed     = "manifests name the old kind"
	whyOwnerChanged    = "spec.owner must name another kind"
	whyScopeChanged    = "the resource lives at another scope: spec.owner and the ARM id differ"
	whyRemovedSpec     = "a manifest that sets it is refused (unknown field) or loses the value"
	whyRemovedStatus   = "status no longer reports it"
	whyRequired        = "a manifest without it is rejected"
	whyReadOnly        = "it leaves the spec: a manifest that sets it is refused (unknown field) or loses the value"
	whyWriteOnly       = "ARM no longer returns it: status no longer reports it"
	whyCreateOnly      = "a change after creation is rejected"
	whyBecameSecret    = "the spec field becomes a reference to a Secret key instead of the value, and status no longer shows it"
	whyLeftSecret      = "the spec field holds the value instead of a reference to a Secret key"
	whyType            = "values of the old type are rejected"
	whyEnumRemoved     = "a manifest with a removed value is rejected"
	whyEnumRemovedOpen = "the enum is open, so the CRD still accepts a removed value, but ARM no longer lists it and may refuse it"
	whyEnumClosed      = "a manifest with any other value is rejected"
)

// Compare reports the changes from the kinds of older to those of newer,
// matched by ARM type. Either may be nil (no kinds). Each model is expected
// to hold one api-version per ARM type, as one generator analysis does.
func Compare(older, newer *model.Model) *Report {
	return CompareKinds(kindsOf(older), kindsOf(newer))
}

// CompareKinds is Compare over explicit lists of kinds, for a caller that
// holds several api-versions of a type in one model: pass the kinds of one
// version as older and those of the other as newer. When a list holds an
// ARM type twice, the first is compared and the report says so in Notes.
func CompareKinds(older, newer []*model.Kind) *Report {
	r := &Report{Old: apiVersions(older), New: apiVersions(newer), Kinds: []KindDiff{}}
	olds, notes := byType(older, "old")
	news, more := byType(newer, "new")
	r.Notes = append(notes, more...)
	keys := map[string]bool{}
	for k := range olds {
		keys[k] = true
	}
	for k := range news {
		keys[k] = true
	}
	types := make([]string, 0, len(keys))
	for k := range keys {
		types = append(types, k)
	}
	sort.Strings(types)
	for _, t := range types {
		o, n := olds[t], news[t]
		var d KindDiff
		switch {
		case o == nil:
			d = newKindDiff(nil, n)
			d.Changes = []Change{{Op: ResourceAdded, New: n.Resource.APIVersion}}
			r.Summary.Added++
		case n == nil:
			d = newKindDiff(o, nil)
			d.Changes = []Change{{Op: ResourceRemoved, Old: o.Resource.APIVersion, Breaking: true, Why: whyResourceRemoved}}
			r.Summary.Removed++
		default:
			r.Summary.Compared++
			d = newKindDiff(o, n)
			d.Changes = compareKind(o, n)
		}
		if len(d.Changes) == 0 {
			continue
		}
		for _, c := range d.Changes {
			if c.Breaking {
				d.Breaking++
			}
		}
		r.Summary.Breaking += d.Breaking
		r.Summary.Changed++
		r.Kinds = append(r.Kinds, d)
	}
	return r
}

// kindsOf lists the kinds of a model in package order.
func kindsOf(m *model.Model) []*model.Kind {
	if m == nil {
		return nil
	}
	var out []*model.Kind
	for _, p := range m.Packages {
		out = append(out, p.Kinds...)
	}
	return out
}

// byType indexes kinds by lower-case ARM type.
func byType(kinds []*model.Kind, side string) (map[string]*model.Kind, []string) {
	out := map[string]*model.Kind{}
	var notes []string
	for _, k := range kinds {
		if k == nil || k.Resource == nil {
			continue
		}
		key := strings.ToLower(k.Resource.ARMType)
		if first, ok := out[key]; ok {
			notes = append(notes, fmt.Sprintf("%s is on the %s side twice (api-versions %s and %s); %s is compared",
				k.Resource.ARMType, side, first.Resource.APIVersion, k.Resource.APIVersion, first.Resource.APIVersion))
			continue
		}
		out[key] = k
	}
	return out, notes
}

// apiVersions lists the distinct api-versions of kinds, sorted.
func apiVersions(kinds []*model.Kind) string {
	seen := map[string]bool{}
	var out []string
	for _, k := range kinds {
		if k == nil || k.Resource == nil || seen[k.Resource.APIVersion] {
			continue
		}
		seen[k.Resource.APIVersion] = true
		out = append(out, k.Resource.APIVersion)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func newKindDiff(o, n *model.Kind) KindDiff {
	var d KindDiff
	if o != nil {
		d.ARMType, d.Kind = o.Resource.ARMType, o.Name
		d.OldAPIVersion = o.Resource.APIVersion
		if o.Package != nil {
			d.Group, d.OldVersion = o.Package.Group, o.Package.Version
		}
	}
	if n != nil {
		d.ARMType, d.Kind = n.Resource.ARMType, n.Name
		d.NewAPIVersion = n.Resource.APIVersion
		if n.Package != nil {
			d.Group, d.NewVersion = n.Package.Group, n.Package.Version
		}
	}
	return d
}

// compareKind lists the changes of one ARM type present on both sides.
func compareKind(o, n *model.Kind) []Change {
	var out []Change
	if on, nn := qualified(o), qualified(n); on != nn {
		out = append(out, Change{Op: KindRenamed, Old: on, New: nn, Breaking: true, Why: whyKindRenamed})
	}
	if !strings.EqualFold(o.Resource.Owner, n.Resource.Owner) {
		out = append(out, Change{Op: OwnerChanged, Old: o.Resource.Owner, New: n.Resource.Owner, Breaking: true, Why: whyOwnerChanged})
	}
	if o.Resource.Scope != n.Resource.Scope {
		out = append(out, Change{Op: ScopeChanged, Old: string(o.Resource.Scope), New: string(n.Resource.Scope), Breaking: true, Why: whyScopeChanged})
	}
	out = append(out, compareProps(flatten(o), flatten(n))...)
	slices.SortStableFunc(out, func(a, b Change) int {
		if c := descriptor.MustParsePath(a.Path).Compare(descriptor.MustParsePath(b.Path)); c != 0 {
			return c
		}
		return opOrder[a.Op] - opOrder[b.Op]
	})
	return out
}

// qualified is a kind's name with its API group.
func qualified(k *model.Kind) string {
	if k.Package == nil {
		return k.Name
	}
	return k.Name + "." + k.Package.Group
}

// compareProps lists the property changes between two sets of rows, folding
// the changes that follow from a parent's (see the package doc).
func compareProps(olds, news map[string]*prop) []Change {
	var sorted []descriptor.Path
	for _, o := range olds {
		sorted = append(sorted, o.Path)
	}
	for p, n := range news {
		if _, ok := olds[p]; !ok {
			sorted = append(sorted, n.Path)
		}
	}
	// Parents sort before their children: `a` < `a.b` < `a[*].c`.
	slices.SortFunc(sorted, descriptor.Path.Compare)

	var out []Change
	// folds maps a path to the index in out of the change that absorbs the
	// added, removed or retyped properties below it.
	folds := map[string]int{}
	// classAt maps a path to the index of its class change.
	classAt := map[string]int{}
	for _, p := range sorted {
		path := p.String()
		o, n := olds[path], news[path]
		if i, ok := foldedInto(p, folds); ok && (o == nil || n == nil) {
			out[i].Below++
			folds[path] = i
			continue
		}
		switch {
		case o == nil:
			folds[path] = len(out)
			out = append(out, added(path, n))
		case n == nil:
			folds[path] = len(out)
			out = append(out, removed(path, o))
		default:
			if c, ok := classChange(path, o, n); ok {
				if i, ok := foldedInto(p, classAt); ok && out[i].Old == c.Old && out[i].New == c.New {
					out[i].Below++
					classAt[path] = i
				} else {
					classAt[path] = len(out)
					out = append(out, c)
				}
			}
			if c, ok := typeChange(path, o, n); ok {
				folds[path] = len(out)
				out = append(out, c)
			}
			out = append(out, requiredChange(path, o, n)...)
			out = append(out, enumChanges(path, o, n)...)
		}
	}
	return out
}

// foldedInto returns the change that absorbs the properties below the
// nearest ancestor of path that has one.
func foldedInto(path descriptor.Path, at map[string]int) (int, bool) {
	for p := parent(path); len(p) > 0; p = parent(p) {
		if i, ok := at[p.String()]; ok {
			return i, true
		}
	}
	return 0, false
}

// describeProp is a property's class and type, e.g. "writable string".
func describeProp(p *prop) string {
	t := p.typeOf()
	if p.Class == classify.Secret {
		t = p.Type
	}
	if t == "" {
		return string(p.Class)
	}
	return string(p.Class) + " " + t
}

func added(path string, n *prop) Change {
	c := Change{Op: Added, Path: path, New: describeProp(n), Rule: n.Rule}
	if n.Required && inSpec(n.Class) {
		c.New += ", required"
		c.Breaking, c.Why = true, whyRequired
	}
	return c
}

func removed(path string, o *prop) Change {
	c := Change{Op: Removed, Path: path, Old: describeProp(o), Rule: o.Rule, Breaking: true, Why: whyRemovedStatus}
	if inSpec(o.Class) {
		c.Why = whyRemovedSpec
	}
	return c
}

// classChange compares the classes of a property on both sides.
func classChange(path string, o, n *prop) (Change, bool) {
	if o.Class == n.Class {
		return Change{}, false
	}
	c := Change{Op: ClassChanged, Path: path, Old: string(o.Class), New: string(n.Class), Rule: n.Rule, OldRule: o.Rule}
	switch {
	case inSpec(o.Class) && n.Class == classify.ReadOnly:
		c.Breaking, c.Why = true, whyReadOnly
	case n.Class == classify.Secret:
		c.Breaking, c.Why = true, whyBecameSecret
	case o.Class == classify.Secret && inSpec(n.Class):
		c.Breaking, c.Why = true, whyLeftSecret
	case n.Class == classify.CreateOnly && (o.Class == classify.Writable || o.Class == classify.WriteOnly):
		c.Breaking, c.Why = true, whyCreateOnly
	case n.Class == classify.WriteOnly && o.Class != classify.Secret:
		c.Breaking, c.Why = true, whyWriteOnly
	}
	return c, true
}

// typeChange compares the types of a property; a change to or from secret
// is the class change's.
func typeChange(path string, o, n *prop) (Change, bool) {
	if o.Class == classify.Secret || n.Class == classify.Secret {
		return Change{}, false
	}
	ot, nt := typeName(o, n)
	if ot == "" || nt == "" || ot == nt {
		return Change{}, false
	}
	return Change{Op: TypeChanged, Path: path, Old: ot, New: nt, Breaking: true, Why: whyType}, true
}

// requiredChange compares whether the PUT body requires a spec property.
func requiredChange(path string, o, n *prop) []Change {
	was := o.Required && inSpec(o.Class)
	is := n.Required && inSpec(n.Class)
	switch {
	case is && !was:
		return []Change{{Op: Required, Path: path, Breaking: true, Why: whyRequired}}
	case was && !is && inSpec(n.Class):
		return []Change{{Op: Optional, Path: path}}
	}
	return nil
}

// enumChanges compares the enums of a spec property.
func enumChanges(path string, o, n *prop) []Change {
	if o.specType == "" || n.specType == "" || (o.enum == nil && n.enum == nil) {
		return nil
	}
	var out []Change
	ov, nv := enumValues(o.enum), enumValues(n.enum)
	if n.enum != nil {
		if gone := minus(ov, nv); len(gone) > 0 {
			why := whyEnumRemoved
			if !n.enum.Closed {
				why = whyEnumRemovedOpen
			}
			out = append(out, Change{Op: EnumRemoved, Path: path, Values: gone, Breaking: true, Why: why})
		}
		if extra := minus(nv, ov); len(extra) > 0 {
			out = append(out, Change{Op: EnumAdded, Path: path, Values: extra})
		}
	}
	wasClosed := o.enum != nil && o.enum.Closed
	isClosed := n.enum != nil && n.enum.Closed
	switch {
	case isClosed && !wasClosed:
		out = append(out, Change{Op: EnumClosed, Path: path, Values: nv, Breaking: true, Why: whyEnumClosed})
	case wasClosed && !isClosed:
		out = append(out, Change{Op: EnumOpened, Path: path})
	}
	return out
}

// minus returns the values of a that b lacks, in a's order.
func minus(a, b []string) []string {
	have := make(map[string]bool, len(b))
	for _, v := range b {
		have[v] = true
	}
	var out []string
	for _, v := range a {
		if !have[v] {
			out = append(out, v)
		}
	}
	return out
}
