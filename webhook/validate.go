package webhook

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// The operator fields of every spec (see api/core and DESIGN.md).
const (
	fieldAzureName  = "azureName"
	fieldOwner      = "owner"
	fieldResourceID = "resourceID"
)

// Details of the field errors. Each says what is wrong and what to do.
const (
	createOnlyDetail = "field is create-only (was %s, now %s); delete and recreate the resource to change it"
	immutableDetail  = "field cannot change once the resource exists in Azure (status.id is set; was %s, now %s); " +
		"delete and recreate the custom resource to change it"
	readOnlyDetail = "field is read-only: Azure sets it and the operator reports it in status; remove it from spec"
	secretDetail   = "must be a Secret key reference {name: <Secret name>, key: <key>} (the value given is not shown); " +
		"put the value in a Secret in the same namespace and reference it"
	ownerBothDetail  = "set one of owner.name and owner.armId, not both"
	ownerShapeDetail = "must be {name: <custom resource>} (with group and kind for an extension resource) or {armId: <ARM id>}"
	// An extension resource's owner is any resource.
	ownerExtDetail = "the owner of a %s (an extension resource: its owner can be any resource) is named by group, kind and name of a custom resource in this namespace, or by armId"
	// Group and kind of another kind's owner.
	ownerKindDetail   = "the owner of a %s is a %s; leave owner.group and owner.kind empty or set them to %q and %q"
	ownerNoKindDetail = "the owner of a %s is a %s, which this operator does not manage as a custom resource; remove owner.group and owner.kind and set owner.armId"
	ownerNameDetail   = "the owner of a %s is a %s, which this operator does not manage as a custom resource; set owner.armId instead"
	ownerTypeDetail   = "names a %s; the owner of a %s must be a %s"
	armIDDetail       = "is not an ARM resource id: %v"
	resourceIDDetail  = "names a %s; a %s can only adopt a %s"
	singletonDetail   = "a %s is a singleton: its name in Azure is always %q; remove azureName or set it to %q"
	// The name in Azure is metadata.name when azureName is absent.
	metadataNameDetail = "%v (without spec.azureName this is the name in Azure; set spec.azureName to a name Azure accepts)"
)

// checker collects the field errors of one validation.
type checker struct {
	d    *descriptor.Descriptor
	errs field.ErrorList
	// served returns the served versions of another kind (nil: none
	// known).
	served func(group, kind string) []*descriptor.Descriptor
}

// validate runs the Descriptor-driven checks on a decoded object; old is nil
// on create.
//
// An update that leaves spec unchanged is not checked (ratcheting): the
// operator's own metadata and finalizer updates must go through even for an
// object stored before the webhook was installed.
func (k *kind) validate(op admissionv1.Operation, obj, old map[string]any) field.ErrorList {
	spec := obj["spec"]
	c := &checker{d: k.d}
	if k.reg != nil {
		c.served = k.reg.served
	}
	sp := field.NewPath("spec")
	c.policy(op, obj, old)
	if op == admissionv1.Update {
		oldSpec := old["spec"]
		if equal(oldSpec, spec) {
			return c.errs
		}
		c.createOnly(k.tree, sp, oldSpec, spec)
		c.createOnlyRefs(sp, oldSpec, spec)
		if id := str(old["status"], "id"); id != "" {
			c.operatorFields(sp, old, obj)
		}
	}
	c.name(op, obj, old)
	c.readOnly(k.tree, sp, spec)
	c.secrets(k.tree, sp, spec)
	c.owner(sp.Child(fieldOwner), spec)
	c.resourceID(sp.Child(fieldResourceID), spec)
	c.singleton(sp.Child(fieldAzureName), spec)
	c.ignoreChanges(sp, spec)
	c.references(sp, spec)
	c.outputs(sp, spec)
	c.valuesFrom(sp, spec)
	c.required(sp, spec)
	return c.errs
}

// policy refuses an unknown reconcile policy on create, and on an update
// that changes it (an object stored with one before the webhook was
// installed is let through; the reconciler refuses to act on it).
func (c *checker) policy(op admissionv1.Operation, obj, old map[string]any) {
	p, set := annotations(obj)[core.AnnotationPolicy]
	if !set {
		return
	}
	if op == admissionv1.Update {
		if was, ok := annotations(old)[core.AnnotationPolicy]; ok && was == p {
			return
		}
	}
	if _, err := core.ParsePolicy(p); err != nil {
		names := make([]string, len(core.Policies))
		for i, v := range core.Policies {
			names[i] = string(v)
		}
		c.errs = append(c.errs, field.NotSupported(policyPath, p, names))
	}
}

// policyPath is the field path of the reconcile-policy annotation.
var policyPath = field.NewPath("metadata", "annotations").Key(core.AnnotationPolicy)

// annotations returns the annotations of a decoded object.
func annotations(obj map[string]any) map[string]string {
	meta, _ := obj["metadata"].(map[string]any)
	raw, _ := meta["annotations"].(map[string]any)
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// createOnly compares old and cur below n, which is not create-only itself,
// descending only into subtrees that hold create-only paths. Array items
// are paired by name or index (pairItems), map values by key; an item or
// value present on one side only was added or removed, which its array or
// map allows. A property present on one side only is a change.
func (c *checker) createOnly(n *node, p *field.Path, old, cur any) {
	for _, seg := range n.order {
		ch := n.children[seg]
		if !ch.createOnlyBelow {
			continue
		}
		switch seg {
		case descriptor.Items:
			oa, _ := old.([]any)
			na, _ := cur.([]any)
			pairs, _ := pairItems(oa, na)
			for _, pr := range pairs {
				c.compare(ch, p.Index(pr.cur), oa[pr.old], na[pr.cur], true, true)
			}
		case descriptor.Values:
			om, _ := old.(map[string]any)
			nm, _ := cur.(map[string]any)
			for _, key := range slices.Sorted(maps.Keys(nm)) {
				if ov, ok := om[key]; ok {
					c.compare(ch, p.Key(key), ov, nm[key], true, true)
				}
			}
		default:
			ov, ook := lookup(old, seg)
			nv, nok := lookup(cur, seg)
			if ook || nok {
				c.compare(ch, descriptor.FieldChild(p, seg), ov, nv, ook, nok)
			}
		}
	}
}

// compare checks the value at n: frozen when n is create-only, else the
// create-only paths below it.
func (c *checker) compare(n *node, p *field.Path, old, cur any, oldOK, curOK bool) {
	if n.class == descriptor.CreateOnly {
		c.frozen(n, p, old, cur, oldOK, curOK, false)
		return
	}
	c.createOnly(n, p, old, cur)
}

// frozen reports where a create-only value changed: at the deepest object
// property that differs, at an array item paired by name or index, or at
// the whole array when items were added, removed or renamed, or are not
// objects. n may be nil below the table's paths; everything under a
// create-only path is create-only. inSecret is true below a secret or
// write-only path: such values, and values holding one, are never shown.
func (c *checker) frozen(n *node, p *field.Path, old, cur any, oldOK, curOK, inSecret bool) {
	hide := inSecret || (n != nil && n.secretBelow)
	inSecret = inSecret || n.isSecret()
	if oldOK != curOK {
		c.changed(p, old, cur, oldOK, curOK, hide)
		return
	}
	if !oldOK || equal(old, cur) {
		return
	}
	switch o := old.(type) {
	case map[string]any:
		nm, ok := cur.(map[string]any)
		if !ok {
			c.changed(p, old, cur, true, true, hide)
			return
		}
		for _, key := range unionKeys(o, nm) {
			ov, ook := o[key]
			nv, nok := nm[key]
			c.frozen(n.child(key), childPath(n, p, key), ov, nv, ook, nok, inSecret)
		}
	case []any:
		na, ok := cur.([]any)
		if !ok || !allObjects(o) || !allObjects(na) {
			c.changed(p, old, cur, true, true, hide)
			return
		}
		pairs, same := pairItems(o, na)
		if !same {
			c.changed(p, old, cur, true, true, hide)
			return
		}
		items := n.items()
		for _, pr := range pairs {
			c.frozen(items, p.Index(pr.cur), o[pr.old], na[pr.cur], true, true, inSecret)
		}
	default:
		c.changed(p, old, cur, true, true, hide)
	}
}

// changed adds the create-only error for p.
func (c *checker) changed(p *field.Path, old, cur any, oldOK, curOK, hide bool) {
	c.errs = append(c.errs, field.Forbidden(p, fmt.Sprintf(createOnlyDetail, render(old, oldOK, hide), render(cur, curOK, hide))))
}

// operatorFields refuses a change of azureName, owner or resourceID once the
// resource exists in Azure. azureName compares as the name the reconciler
// uses, so defaulting an absent azureName to that name is no change.
func (c *checker) operatorFields(sp *field.Path, old, obj map[string]any) {
	oa, na := c.azureName(old), c.azureName(obj)
	if oa != na {
		c.errs = append(c.errs, field.Forbidden(sp.Child(fieldAzureName), fmt.Sprintf(immutableDetail, render(oa, oa != "", false), render(na, na != "", false))))
	}
	for _, f := range []string{fieldOwner, fieldResourceID} {
		ov, ook := lookupSet(old["spec"], f)
		nv, nok := lookupSet(obj["spec"], f)
		if ook != nok || !equal(ov, nv) {
			c.errs = append(c.errs, field.Forbidden(sp.Child(f), fmt.Sprintf(immutableDetail, render(ov, ook, false), render(nv, nok, false))))
		}
	}
}

// azureName is the name of the object in Azure: spec.azureName, else the
// singleton name, else metadata.name.
func (c *checker) azureName(obj map[string]any) string {
	if n := str(obj["spec"], fieldAzureName); n != "" {
		return n
	}
	if c.d.Singleton != "" {
		return c.d.Singleton
	}
	return str(obj["metadata"], "name")
}

// name refuses a name the reconciler would put into the resource's ARM id
// that Azure refuses (Descriptor.CheckName): one that is no single id
// segment (../x would climb out of the owner), or breaks the swagger's
// pattern or lengths. The name is spec.azureName, else metadata.name, and
// the error is at that path. A singleton's name is checked by singleton.
// On update only a changed name is checked: a name the object already has
// stands (it cannot change once the resource exists in Azure). An adopted
// resource (spec.resourceID) is named by its id: its name only has to be
// one segment (the swagger's pattern is not applied).
func (c *checker) name(op admissionv1.Operation, obj, old map[string]any) {
	if c.d.Singleton != "" {
		return
	}
	check := c.d.CheckName
	if str(obj["spec"], fieldResourceID) != "" {
		check = descriptor.CheckSegment
	}
	name := c.azureName(obj)
	if op == admissionv1.Update && name == c.azureName(old) {
		return
	}
	err := check(name)
	switch {
	case err == nil:
	case str(obj["spec"], fieldAzureName) != "":
		c.errs = append(c.errs, field.Invalid(field.NewPath("spec", fieldAzureName), name, err.Error()))
	default:
		c.errs = append(c.errs, field.Invalid(field.NewPath("metadata", "name"), name, fmt.Sprintf(metadataNameDetail, err)))
	}
}

// readOnly refuses any value at a read-only path.
func (c *checker) readOnly(n *node, p *field.Path, v any) {
	for _, seg := range n.order {
		ch := n.children[seg]
		if !ch.readOnlyBelow {
			continue
		}
		each(seg, p, v, func(p *field.Path, v any) {
			if ch.class == descriptor.ReadOnly {
				c.errs = append(c.errs, field.Forbidden(p, readOnlyDetail))
				return
			}
			c.readOnly(ch, p, v)
		})
	}
}

// secrets requires a Secret key reference, {name, key} and nothing else, at
// every path that holds one. The value given is never echoed.
func (c *checker) secrets(n *node, p *field.Path, v any) {
	for _, seg := range n.order {
		ch := n.children[seg]
		if !ch.secretBelow {
			continue
		}
		each(seg, p, v, func(p *field.Path, v any) {
			if ch.secretRef {
				if !isSecretRef(v) {
					c.errs = append(c.errs, field.Invalid(p, field.OmitValueType{}, secretDetail))
				}
				return
			}
			c.secrets(ch, p, v)
		})
	}
}

// isSecretRef reports whether v is {name: non-empty, key: non-empty}.
func isSecretRef(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 2 {
		return false
	}
	return str(m, "name") != "" && str(m, "key") != ""
}

// owner checks that spec.owner names one owner, of the Descriptor's owner
// type: a custom resource only when the owner kind is generated, an ARM id
// (that passes descriptor.CheckID) only of the owner's ARM type; for an extension kind, a custom resource
// of any kind (group, kind and name) or an ARM id of anything.
func (c *checker) owner(p *field.Path, spec any) {
	v, ok := lookupSet(spec, fieldOwner)
	if !ok {
		return
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		c.errs = append(c.errs, field.Invalid(p, v, ownerShapeDetail))
		return
	}
	name, armID := str(m, "name"), str(m, "armId")
	c.ownerKind(p, m, name, armID)
	switch {
	case name != "" && armID != "":
		c.errs = append(c.errs, field.Invalid(p, v, ownerBothDetail))
	case name != "" && c.d.OwnerKind == "" && c.d.OwnerARMType != "":
		c.errs = append(c.errs, field.Invalid(p.Child("name"), name, fmt.Sprintf(ownerNameDetail, c.d.Kind, c.d.OwnerARMType)))
	case armID != "":
		typ, err := typeOf(armID)
		switch {
		case err != nil:
			c.errs = append(c.errs, field.Invalid(p.Child("armId"), armID, fmt.Sprintf(armIDDetail, err)))
		case c.d.OwnerARMType != "" && !strings.EqualFold(typ, c.d.OwnerARMType):
			c.errs = append(c.errs, field.Invalid(p.Child("armId"), armID, fmt.Sprintf(ownerTypeDetail, typ, c.d.Kind, c.d.OwnerARMType)))
		}
	}
}

// ownerKind checks spec.owner.group and kind: an extension kind's owner
// custom resource needs both (any kind); another kind's may only repeat
// its Descriptor's owner kind.
func (c *checker) ownerKind(p *field.Path, m map[string]any, name, armID string) {
	group, kind := str(m, "group"), str(m, "kind")
	if c.d.Scope == descriptor.ScopeExtension {
		detail := fmt.Sprintf(ownerExtDetail, c.d.Kind)
		switch {
		case armID != "" && (group != "" || kind != ""):
			c.errs = append(c.errs, field.Invalid(p, m, ownerBothDetail+"; "+detail))
		case armID == "" && name == "":
			c.errs = append(c.errs, field.Required(p.Child("name"), detail))
		case armID == "" && group == "":
			c.errs = append(c.errs, field.Required(p.Child("group"), detail))
		case armID == "" && kind == "":
			c.errs = append(c.errs, field.Required(p.Child("kind"), detail))
		}
		return
	}
	if group == "" && kind == "" {
		return
	}
	if c.d.OwnerKind == "" {
		c.errs = append(c.errs, field.Invalid(p.Child("kind"), kind, fmt.Sprintf(ownerNoKindDetail, c.d.Kind, ownerOf(c.d))))
		return
	}
	detail := fmt.Sprintf(ownerKindDetail, c.d.Kind, c.d.OwnerKind, c.d.OwnerGroup, c.d.OwnerKind)
	if group != "" && !strings.EqualFold(group, c.d.OwnerGroup) {
		c.errs = append(c.errs, field.Invalid(p.Child("group"), group, detail))
	}
	if kind != "" && kind != c.d.OwnerKind {
		c.errs = append(c.errs, field.Invalid(p.Child("kind"), kind, detail))
	}
}

// ownerOf names the owner of a kind: its ARM type, or "scope".
func ownerOf(d *descriptor.Descriptor) string {
	if d.OwnerARMType != "" {
		return d.OwnerARMType
	}
	return "scope"
}

// resourceID checks that an adopted resource's id is an ARM id (one that
// passes descriptor.CheckID) of the kind's ARM type.
func (c *checker) resourceID(p *field.Path, spec any) {
	id := str(spec, fieldResourceID)
	if id == "" {
		return
	}
	typ, err := typeOf(id)
	switch {
	case err != nil:
		c.errs = append(c.errs, field.Invalid(p, id, fmt.Sprintf(armIDDetail, err)))
	case !strings.EqualFold(typ, c.d.ARMType):
		c.errs = append(c.errs, field.Invalid(p, id, fmt.Sprintf(resourceIDDetail, typ, c.d.Kind, c.d.ARMType)))
	}
}

// typeOf returns the ARM type of an id a user gave, after refusing what
// can never be one (descriptor.CheckID: ../ in it, an empty segment, a
// query) with that error.
func typeOf(id string) (string, error) {
	if err := descriptor.CheckID(id); err != nil {
		return "", err
	}
	return descriptor.TypeOf(id)
}

// singleton checks the azureName of a singleton kind.
func (c *checker) singleton(p *field.Path, spec any) {
	name := str(spec, fieldAzureName)
	if c.d.Singleton == "" || name == "" || strings.EqualFold(name, c.d.Singleton) {
		return
	}
	c.errs = append(c.errs, field.Invalid(p, name, fmt.Sprintf(singletonDetail, c.d.ARMType, c.d.Singleton, c.d.Singleton)))
}

// each calls fn for the values a segment selects in v: the property, every
// array item or every map value (in key order), with its path.
func each(seg string, p *field.Path, v any, fn func(*field.Path, any)) {
	switch seg {
	case descriptor.Items:
		a, _ := v.([]any)
		for i, item := range a {
			fn(p.Index(i), item)
		}
	case descriptor.Values:
		m, _ := v.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fn(p.Key(k), m[k])
		}
	default:
		if e, ok := lookup(v, seg); ok {
			fn(descriptor.FieldChild(p, seg), e)
		}
	}
}

// childPath is the path of key below p: a map key when n describes a map,
// else a property.
func childPath(n *node, p *field.Path, key string) *field.Path {
	if n != nil && n.children[key] == nil && n.children[descriptor.Values] != nil {
		return p.Key(key)
	}
	return descriptor.FieldChild(p, key)
}

// lookupSet is lookup that counts null and "" as absent, as the operator
// fields are omitempty.
func lookupSet(m any, key string) (any, bool) {
	v, ok := lookup(m, key)
	if !ok || v == nil || v == "" {
		return nil, false
	}
	return v, true
}

// pair is an old and a new index of the same array item.
type pair struct{ old, cur int }

// pairItems pairs the items of two arrays: by their name field when every
// item on both sides is an object with a distinct, non-empty string name,
// else by index. same is true when every item has a partner.
func pairItems(old, cur []any) (pairs []pair, same bool) {
	if on, ok := itemNames(old); ok {
		if nn, ok := itemNames(cur); ok {
			for name, i := range nn {
				if j, found := on[name]; found {
					pairs = append(pairs, pair{old: j, cur: i})
				}
			}
			sort.Slice(pairs, func(a, b int) bool { return pairs[a].cur < pairs[b].cur })
			return pairs, len(pairs) == len(old) && len(pairs) == len(cur)
		}
	}
	n := min(len(old), len(cur))
	pairs = make([]pair, n)
	for i := range n {
		pairs[i] = pair{old: i, cur: i}
	}
	return pairs, len(old) == len(cur)
}

// itemNames maps each item's name to its index, or returns false when the
// items cannot be paired by name.
func itemNames(items []any) (map[string]int, bool) {
	names := make(map[string]int, len(items))
	for i, item := range items {
		name := str(item, "name")
		if name == "" {
			return nil, false
		}
		if _, dup := names[name]; dup {
			return nil, false
		}
		names[name] = i
	}
	return names, len(items) > 0
}

// allObjects reports whether every item is a JSON object.
func allObjects(items []any) bool {
	for _, item := range items {
		if _, ok := item.(map[string]any); !ok {
			return false
		}
	}
	return true
}

// unionKeys returns the keys of a and b, sorted, once each.
func unionKeys(a, b map[string]any) []string {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
