package examples

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Sample is the example a kind's sample is made from. A Sample without
// an example (no Names) stands for a kind that has none: it is made, with
// a name and a location only, when another sample needs it as its owner.
type Sample struct {
	Kind    *model.Kind
	Example Example
}

// bare tells whether s has no example.
func (s *Sample) bare() bool { return len(s.Example.Names) == 0 }

// SetFile is the samples of one API group: the custom resources in the
// order they are applied, and the Secrets they read (kept apart so that
// the custom resources' file holds custom resources only).
type SetFile struct {
	CRs, Secrets []byte
}

// Sets makes, per API group, a set of samples that apply as they are in one
// namespace (docs/samples.md): a resource group first, then every kind of
// the group that has a Sample, each after its owner and after the objects
// it references, with
//
//   - spec.owner naming an object of the set (the set's resource group, or
//     the owner kind's sample, added when the group has none);
//   - each ARM id at a reference path of the kind (model.Kind.References)
//     replaced by the reference field (XRef, XRefs for a map keyed by ids)
//     naming an object of the set of the kind the id names (added with its
//     own owners and references when the set lacks it), or dropped when no
//     Sample of such a kind exists;
//   - any other ARM id (a string that names /subscriptions/… or
//     /providers/…, a map key that does) dropped: the examples' ids name
//     resources that do not exist;
//   - a Secret beside each object with secret fields, holding the example's
//     values.
//
// A model without the resource group kind gets sets without the resource
// group (their owners name it all the same).
//
// Objects are named <group's first label>-<the example's names>, so the
// sets of all groups can be applied to one namespace together. header is
// the first line of every file. The result is keyed by group; notes say
// which samples could not be made.
func Sets(samples []Sample, header string) (map[string]SetFile, []string) {
	idx := newIndex(samples)
	groups := map[string][]*Sample{}
	for i := range samples {
		s := &samples[i]
		if !s.bare() {
			groups[s.Kind.Package.Group] = append(groups[s.Kind.Package.Group], s)
		}
	}
	out := map[string]SetFile{}
	var notes []string
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		b := newSetBuilder(g, idx)
		ss := groups[g]
		sort.Slice(ss, func(i, j int) bool { return ss[i].Kind.Name < ss[j].Kind.Name })
		for _, s := range ss {
			if _, ok := b.ensure(s); ok {
				b.made++
			}
		}
		if b.made == 0 {
			notes = append(notes, b.notes...)
			continue
		}
		f, err := b.render(header)
		if err != nil {
			notes = append(notes, fmt.Sprintf("sample set %s: %v", g, err))
			continue
		}
		out[g] = f
		notes = append(notes, b.notes...)
	}
	return out, notes
}

// index finds samples by ARM type and by group/Kind.
type index struct {
	byType map[string]*Sample // lower-case ARM type
	byKind map[string]*Sample // group/Kind
	rg     *Sample
}

func newIndex(samples []Sample) *index {
	idx := &index{byType: map[string]*Sample{}, byKind: map[string]*Sample{}}
	for i := range samples {
		s := &samples[i]
		idx.byType[strings.ToLower(s.Kind.Resource.ARMType)] = s
		idx.byKind[s.Kind.Package.Group+"/"+s.Kind.Name] = s
		if strings.EqualFold(s.Kind.Resource.ARMType, tree.ResourceGroupType) && !s.bare() {
			idx.rg = s
		}
	}
	return idx
}

// The states of a sample in a set.
const (
	stateNone = iota
	stateBuilding
	stateDone
	stateFailed
)

// setDoc is one document of a set: a comment and an object.
type setDoc struct {
	comment []string
	obj     map[string]any
}

// setBuilder builds the set of one group.
type setBuilder struct {
	group, short, rgName string
	idx                  *index
	state                map[*Sample]int
	names                map[*Sample]string
	secretNames          map[string]bool
	made                 int // objects of the group's own kinds
	docs, secrets        []setDoc
	notes                []string
}

func newSetBuilder(group string, idx *index) *setBuilder {
	short, _, _ := strings.Cut(group, ".")
	b := &setBuilder{group: group, short: short, rgName: "samples-" + short, idx: idx, state: map[*Sample]int{}, names: map[*Sample]string{}, secretNames: map[string]bool{}}
	b.addResourceGroup()
	return b
}

// addResourceGroup adds the set's resource group, from the resource
// group's sample (its location and tags) under the set's name.
func (b *setBuilder) addResourceGroup() {
	s := b.idx.rg
	if s == nil {
		// A model without the resource group kind (a test's): the set
		// names a resource group it does not hold.
		return
	}
	cr := ToCR(s.Kind, s.Example)
	spec := cr.Object["spec"].(map[string]any)
	spec["azureName"] = b.rgName
	cr.Object["metadata"] = map[string]any{"name": b.rgName}
	b.state[s], b.names[s] = stateDone, b.rgName
	b.docs = append(b.docs, setDoc{
		comment: []string{fmt.Sprintf("The resource group of the %s samples (from the x-ms-examples entry %q).", b.short, s.Example.Title)},
		obj:     cr.Object,
	})
}

// ensure adds s (after what it needs) and returns its object's name; false
// when it cannot be made.
func (b *setBuilder) ensure(s *Sample) (string, bool) {
	switch b.state[s] {
	case stateDone:
		return b.names[s], true
	case stateBuilding, stateFailed:
		return "", false
	}
	b.state[s] = stateBuilding
	k, ex := s.Kind, s.Example
	if s.bare() {
		return b.ensureBare(s)
	}
	name := Name(append([]string{b.short}, ex.Names...)...)
	b.names[s] = name
	cr := ToCR(k, ex)
	spec := cr.Object["spec"].(map[string]any)
	var comment []string
	comment = append(comment, fmt.Sprintf("A %s from the x-ms-examples entry %q", k.Resource.ARMType, ex.Title), fmt.Sprintf("(%s).", ex.File))
	if len(cr.Dropped) > 0 {
		comment = append(comment, fmt.Sprintf("Dropped readOnly values of the example: %s.", strings.Join(cr.Dropped, ", ")))
	}
	if len(cr.Hidden) > 0 {
		comment = append(comment, fmt.Sprintf("Dropped values of the example that specs/armature.yaml hides: %s.", strings.Join(cr.Hidden, ", ")))
	}
	if !b.setOwner(s, spec) {
		return "", false
	}
	var refs, dropped []string
	for _, r := range k.References {
		b.resolve(spec, r, r.Path, k, &refs, &dropped)
	}
	dropped = append(dropped, scrubIDs(spec, nil)...)
	refs, dropped = sortedSet(refs), sortedSet(dropped)
	if len(refs) > 0 {
		comment = append(comment, fmt.Sprintf("ARM ids of the example turned into references to objects of this file: %s.", strings.Join(refs, ", ")))
	}
	if len(dropped) > 0 {
		comment = append(comment, fmt.Sprintf("ARM ids of the example dropped (no sample of what they name): %s.", strings.Join(dropped, ", ")))
	}
	if len(cr.SecretValues) > 0 {
		secret := name + "-secrets"
		for i := 2; b.secretNames[secret]; i++ {
			// Two kinds of one path (a server's auditing and extended
			// auditing settings) have objects of one name.
			secret = fmt.Sprintf("%s-secrets-%d", name, i)
		}
		b.secretNames[secret] = true
		renameSecret(spec, Name(ex.Names...)+"-secrets", secret)
		data := map[string]any{}
		for key, v := range cr.SecretValues {
			data[key] = v
		}
		b.secrets = append(b.secrets, setDoc{
			comment: []string{fmt.Sprintf("The secret values of %s %s (the example's).", k.Name, name)},
			obj: map[string]any{
				"apiVersion": "v1", "kind": "Secret",
				"metadata":   map[string]any{"name": secret},
				"stringData": data,
			},
		})
		comment = append(comment, fmt.Sprintf("The Secret %s holds %s (secrets/%s.yaml of generated/samples).", secret, strings.Join(cr.Secrets, ", "), b.group))
	}
	cr.Object["metadata"] = map[string]any{"name": name}
	b.docs = append(b.docs, setDoc{comment: comment, obj: cr.Object})
	b.state[s] = stateDone
	return name, true
}

// sortedSet sorts ss and drops duplicates.
func sortedSet(ss []string) []string {
	sort.Strings(ss)
	return slices.Compact(ss)
}

// ensureBare adds the object of a kind without an example, as the owner
// of another: a name, its owner and, for a kind that has one, a location.
func (b *setBuilder) ensureBare(s *Sample) (string, bool) {
	k := s.Kind
	name := Name(b.short, k.Name)
	b.names[s] = name
	spec := map[string]any{"azureName": Name("sample", k.Name)}
	if !b.setOwner(s, spec) {
		return "", false
	}
	if _, ok := k.Table.Class(descriptor.Path{"location"}); ok {
		spec["location"] = bareLocation
	}
	b.docs = append(b.docs, setDoc{
		comment: []string{fmt.Sprintf("A %s (no x-ms-examples entry: a name and a location only), the owner of other samples.", k.Resource.ARMType)},
		obj: map[string]any{
			"apiVersion": k.Package.Group + "/" + k.Package.Version,
			"kind":       k.Name,
			"metadata":   map[string]any{"name": name},
			"spec":       spec,
		},
	})
	b.state[s] = stateDone
	return name, true
}

// ownerBuilding is owner's answer for an owner whose object is being made.
const ownerBuilding = "its owner is being made"

// bareLocation is the location of an object made without an example.
const bareLocation = "eastus"

// setOwner sets spec.owner of s's object (left out when the kind has
// none), or says with false that the object cannot be made now (its owner
// is being made) or at all (recorded in state and notes).
func (b *setBuilder) setOwner(s *Sample, spec map[string]any) bool {
	owner, why := b.owner(s.Kind)
	switch {
	case why == ownerBuilding:
		// Named from inside its owner (a load balancer's own backend
		// pool): not a reason to fail when it comes on its own.
		b.state[s] = stateNone
		return false
	case why != "":
		b.state[s] = stateFailed
		b.notes = append(b.notes, fmt.Sprintf("sample set %s: no sample of %s: %s", b.short, s.Kind.Name, why))
		return false
	case owner != nil:
		spec["owner"] = owner
	default:
		delete(spec, "owner")
	}
	return true
}

// owner is spec.owner of a kind's object in the set, or why there is none.
func (b *setBuilder) owner(k *model.Kind) (map[string]any, string) {
	r := k.Resource
	_, domain, _ := strings.Cut(b.group, ".")
	rgGroup, rgKind := "resources."+domain, "ResourceGroup"
	if b.idx.rg != nil {
		rgGroup, rgKind = b.idx.rg.Kind.Package.Group, b.idx.rg.Kind.Name
	}
	switch {
	case r.Scope == tree.ScopeExtension:
		return map[string]any{"group": rgGroup, "kind": rgKind, "name": b.rgName}, ""
	case strings.EqualFold(r.Owner, tree.ResourceGroupType):
		return map[string]any{"name": b.rgName}, ""
	case r.Owner == "" || strings.EqualFold(r.Owner, tree.SubscriptionType) || strings.EqualFold(r.Owner, tree.ManagementGroupType):
		return nil, ""
	}
	p := b.idx.byType[strings.ToLower(r.Owner)]
	if p == nil {
		return nil, "its owner " + r.Owner + " is no generated kind"
	}
	if b.state[p] == stateBuilding {
		return nil, ownerBuilding
	}
	name, ok := b.ensure(p)
	if !ok {
		return nil, "its owner " + r.Owner + " has no sample"
	}
	return map[string]any{"name": name}, ""
}

// resolve walks the rest of a reference's path in v and replaces the ids
// it finds. It returns true when v, a map, must go: it held a required id
// that was dropped (a Site's cloningInfo without its sourceWebAppId), or
// nothing else (a load balancing rule's probe: {id}); the walk above drops
// it when it is a property.
func (b *setBuilder) resolve(v any, r descriptor.Reference, rest descriptor.Path, k *model.Kind, refs, dropped *[]string) bool {
	if len(rest) == 0 {
		return false
	}
	seg := rest[0]
	switch x := v.(type) {
	case []any:
		if seg == descriptor.Items {
			for _, item := range x {
				b.resolve(item, r, rest[1:], k, refs, dropped)
			}
		}
		return false
	case map[string]any:
		if seg == descriptor.Values {
			for _, key := range slices.Sorted(maps.Keys(x)) {
				b.resolve(x[key], r, rest[1:], k, refs, dropped)
			}
			return false
		}
		val, ok := x[seg]
		if !ok {
			return false
		}
		arrayPath := r.Path[:len(r.Path)-len(rest)+1]
		if e, _ := k.Table.Entry(arrayPath); !e.Required && len(rest) > 2 && rest[1] == descriptor.Items {
			// Items left empty by a dropped id go ({id} in a
			// capacity reservation group's subscriptionIds), unless
			// the list is required (a CDN origin group's origins).
			items, _ := val.([]any)
			var kept []any
			for _, item := range items {
				if !b.resolve(item, r, rest[2:], k, refs, dropped) {
					kept = append(kept, item)
				}
			}
			switch {
			case len(kept) == len(items):
			case len(kept) == 0:
				delete(x, seg)
			default:
				x[seg] = kept
			}
			return false
		}
		if len(rest) > 1 {
			if b.resolve(val, r, rest[1:], k, refs, dropped) {
				delete(x, seg)
				if r.Required {
					*dropped = append(*dropped, r.Path.Parent().String()+" (it requires "+r.Path.Last()+")")
				}
			}
			return false
		}
		field := r.RefField()
		if r.Map {
			m, _ := val.(map[string]any)
			var list []any
			for _, id := range slices.Sorted(maps.Keys(m)) {
				if ref := b.refTo(id, r, k); ref != nil {
					list = append(list, ref)
				}
			}
			delete(x, seg)
			if len(list) > 0 {
				x[field] = list
				*refs = append(*refs, r.Path.String())
			} else if len(m) > 0 {
				*dropped = append(*dropped, r.Path.String())
			}
			return false
		}
		id, _ := val.(string)
		if !isARMID(id) {
			return false
		}
		delete(x, seg)
		if ref := b.refTo(id, r, k); ref != nil {
			x[field] = ref
			*refs = append(*refs, r.Path.String())
			return false
		}
		*dropped = append(*dropped, r.Path.String())
		if r.Required {
			return true
		}
		// An object left empty goes, unless its own holder requires it
		// (a disk encryption key's sourceVault stays, as {}).
		e, _ := k.Table.Entry(r.Path.Parent())
		return len(x) == 0 && !e.Required
	}
	return false
}

// refTo is the reference ({group, kind, name}) to the object of the set
// that stands for the resource id names, or nil: the kind is the one of
// the id's ARM type when a reference may name it, else the first target
// with a sample.
func (b *setBuilder) refTo(id string, r descriptor.Reference, k *model.Kind) map[string]any {
	allowed := func(s *Sample) bool {
		return len(r.Targets) == 0 || slices.Contains(r.Targets, s.Kind.Package.Group+"/"+s.Kind.Name)
	}
	var target *Sample
	if s := b.idx.byType[strings.ToLower(armType(id))]; s != nil && !s.bare() && allowed(s) {
		target = s
	} else {
		for _, t := range slices.Sorted(slices.Values(r.Targets)) {
			if s := b.idx.byKind[t]; s != nil && !s.bare() {
				target = s
				break
			}
		}
	}
	if target == nil || target.Kind == k || target.bare() {
		return nil
	}
	name, ok := b.ensure(target)
	if !ok {
		return nil
	}
	ref := map[string]any{"kind": target.Kind.Name, "name": name}
	if target.Kind.Package.Group != k.Package.Group {
		ref["group"] = target.Kind.Package.Group
	}
	return ref
}

// armType is the ARM type an id names ("" when it names none):
// /subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/v/subnets/s
// is Microsoft.Network/virtualNetworks/subnets.
func armType(id string) string {
	i := strings.LastIndex(strings.ToLower(id), "/providers/")
	if i < 0 {
		if strings.Count(strings.Trim(id, "/"), "/") == 3 && strings.Contains(strings.ToLower(id), "/resourcegroups/") {
			return tree.ResourceGroupType
		}
		return ""
	}
	parts := strings.Split(strings.Trim(id[i+len("/providers/"):], "/"), "/")
	if len(parts) < 3 {
		return ""
	}
	types := []string{parts[0]}
	for j := 1; j < len(parts); j += 2 {
		types = append(types, parts[j])
	}
	return strings.Join(types, "/")
}

// isARMID tells whether s names an ARM resource.
func isARMID(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "/subscriptions/") || strings.HasPrefix(l, "subscriptions/") || strings.HasPrefix(l, "/providers/") || strings.Contains(l, "/resourcegroups/")
}

// scrubIDs drops, in place, every string that names an ARM resource or a
// subscription (…SubscriptionId) and every map key that names a resource;
// it returns their paths. A map or a list left
// empty by it is dropped too.
func scrubIDs(m map[string]any, prefix descriptor.Path) []string {
	var out []string
	for _, key := range slices.Sorted(maps.Keys(m)) {
		if prefix == nil && (key == "owner" || key == "valuesFrom") {
			continue
		}
		p := prefix.Child(key)
		if isARMID(key) {
			delete(m, key)
			out = append(out, prefix.Value().String())
			continue
		}
		switch v := m[key].(type) {
		case string:
			if isARMID(v) || strings.HasSuffix(strings.ToLower(key), "subscriptionid") {
				delete(m, key)
				out = append(out, p.String())
			}
		case map[string]any:
			n := len(v)
			out = append(out, scrubIDs(v, p)...)
			if n > 0 && len(v) == 0 {
				delete(m, key)
			}
		case []any:
			var kept []any
			for _, item := range v {
				switch x := item.(type) {
				case string:
					if isARMID(x) {
						out = append(out, p.Item().String())
						continue
					}
				case map[string]any:
					n := len(x)
					out = append(out, scrubIDs(x, p.Item())...)
					if n > 0 && len(x) == 0 {
						continue
					}
				}
				kept = append(kept, item)
			}
			switch {
			case len(kept) == len(v):
			case len(kept) == 0:
				delete(m, key)
			default:
				m[key] = kept
			}
		}
	}
	return out
}

// renameSecret renames the Secret of every secret reference ({name, key})
// named from to to.
func renameSecret(v any, from, to string) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 2 && x["name"] == from {
			if _, ok := x["key"]; ok {
				x["name"] = to
				return
			}
		}
		for _, e := range x {
			renameSecret(e, from, to)
		}
	case []any:
		for _, e := range x {
			renameSecret(e, from, to)
		}
	}
}

// render writes the set's two files.
func (b *setBuilder) render(header string) (SetFile, error) {
	var f SetFile
	var cr strings.Builder
	fmt.Fprintf(&cr, "# %s\n# The samples of %s, to apply to one namespace together: each\n# object's owner and the objects it references are in this file, before it\n# (docs/samples.md).\n", header, b.group)
	if len(b.secrets) > 0 {
		fmt.Fprintf(&cr, "# Apply secrets/%s.yaml first (config/samples/%s.yaml has both).\n", b.group, b.group)
	}
	if err := writeDocs(&cr, b.docs); err != nil {
		return f, err
	}
	f.CRs = []byte(cr.String())
	if len(b.secrets) > 0 {
		var s strings.Builder
		fmt.Fprintf(&s, "# %s\n# The Secrets the samples of %s read.\n", header, b.group)
		if err := writeDocs(&s, b.secrets); err != nil {
			return f, err
		}
		f.Secrets = []byte(s.String())
	}
	return f, nil
}

func writeDocs(w *strings.Builder, docs []setDoc) error {
	for _, d := range docs {
		body, err := yaml.Marshal(d.obj)
		if err != nil {
			return err
		}
		w.WriteString("---\n")
		for _, c := range d.comment {
			fmt.Fprintf(w, "# %s\n", c)
		}
		w.Write(body)
	}
	return nil
}
