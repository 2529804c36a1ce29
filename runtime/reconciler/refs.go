package reconciler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// References between objects (descriptor.Reference, docs/references.md):
// a spec field that holds an ARM id may name another object of the
// operator instead (X+"Ref": {group, kind, name}, in the same namespace).
// The desired body carries the target's status.id in X, resolved before
// decide — so the write decision stays pure and `operator plan` shows
// what is sent. While a target is missing or has no id yet, the object
// waits (Ready=False, WaitingForReference, naming it) and nothing is
// sent; an index of objects by the objects they reference requeues the
// referrers when a target's id or readiness changes (a watch, not
// polling).

// refIndex is the field index of the objects an object references:
// "kind/name", lower case (the group is left out: a reference may omit
// it; a second kind of the same name in another group only costs a
// requeue).
const refIndex = "armature.dev/refs"

// slimRefs keeps refIndex's values on a slim object, comma-separated.
const slimRefs = "armature.dev/refs"

// refPaths are the references of the registered kinds, by GVK: the cache
// transform (which has no Descriptor) reads them to keep a slim object's
// references.
var refPaths sync.Map // schema.GroupVersionKind → []descriptor.Reference

func registerRefPaths(d *descriptor.Descriptor) {
	if len(d.References) > 0 {
		refPaths.Store(d.GroupVersionKind(), d.References)
	}
}

// ObjectRef is a reference to another object of the operator, in the
// referrer's namespace, at Path of the referrer's spec (a concrete path,
// for messages).
type ObjectRef struct {
	Group, Kind, Name string
	Path              descriptor.Path
}

func (o ObjectRef) key() string { return strings.ToLower(o.Kind) + "/" + o.Name }

// RefResolver returns the ARM id of the object ref names.
type RefResolver func(ref ObjectRef) (string, error)

// objectRef reads a {group, kind, name} member.
func objectRef(v any, p descriptor.Path) (ObjectRef, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return ObjectRef{}, false
	}
	r := ObjectRef{Path: p}
	r.Group, _ = m["group"].(string)
	r.Kind, _ = m["kind"].(string)
	r.Name, _ = m["name"].(string)
	return r, r.Kind != "" && r.Name != ""
}

// specRefs returns the references a body (spec, from its root) holds.
func specRefs(refs []descriptor.Reference, body map[string]any) []ObjectRef {
	var out []ObjectRef
	for _, r := range refs {
		field := r.RefField()
		descriptor.Holders(r.Path.Parent(), body, func(at descriptor.Path, m map[string]any) {
			at = at.Child(field)
			if !r.Map {
				if o, ok := objectRef(m[field], at); ok {
					out = append(out, o)
				}
				return
			}
			list, _ := m[field].([]any)
			for i, item := range list {
				if o, ok := objectRef(item, at.Index(i)); ok {
					out = append(out, o)
				}
			}
		})
	}
	return out
}

// resolveRefs replaces every reference in body by the ARM id resolve
// returns: X+"Ref" sets X; each of X+"Refs" adds a key to the map X. The
// ref members are removed (they are never sent). The first error ends it.
func resolveRefs(refs []descriptor.Reference, body map[string]any, resolve RefResolver) error {
	var err error
	for _, r := range refs {
		field, x := r.RefField(), r.Path.Last()
		descriptor.Holders(r.Path.Parent(), body, func(at descriptor.Path, m map[string]any) {
			v, ok := m[field]
			if !ok || err != nil {
				return
			}
			delete(m, field)
			if !r.Map {
				o, ok := objectRef(v, at.Child(field))
				if !ok {
					return
				}
				var id string
				if id, err = resolve(o); err == nil {
					m[x] = id
				}
				return
			}
			list, _ := v.([]any)
			for i, item := range list {
				o, ok := objectRef(item, at.Child(field).Index(i))
				if !ok {
					continue
				}
				var id string
				if id, err = resolve(o); err != nil {
					return
				}
				ids, _ := m[x].(map[string]any)
				if ids == nil {
					ids = map[string]any{}
					m[x] = ids
				}
				if _, ok := ids[id]; !ok {
					ids[id] = map[string]any{}
				}
			}
		})
	}
	return err
}

// refTargets are refIndex's values for an object, of a whole or a slim
// one.
func refTargets(u *unstructured.Unstructured) []string {
	if _, slim := u.Object[packedKey]; slim {
		s, _ := u.Object[slimRefs].(string)
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	v, ok := refPaths.Load(u.GroupVersionKind())
	if !ok {
		return nil
	}
	s, _ := u.Object["spec"].(map[string]any)
	var out []string
	for _, o := range specRefs(v.([]descriptor.Reference), s) {
		out = append(out, o.key())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// waitingError is a reference whose target cannot give an id yet: the
// object waits, shown, until the target changes.
type waitingError struct {
	message string
	// poll: no watch brings the source's change (valuesFrom); read again
	// after Config.PollInterval.
	poll bool
}

func (e *waitingError) Error() string { return core.ReasonWaitingForReference + ": " + e.message }

// resolveRef is the reconciler's RefResolver: the target's status.id, read
// from the cache.
func (r *Reconciler) resolveRef(ctx context.Context, ns string, ref ObjectRef) (string, error) {
	at := ref.Path.FieldPath(specPath).String()
	gk, version, err := r.refKind(ref)
	var notServed *kindNotServed
	if errors.As(err, &notServed) {
		return "", &waitingError{message: at + ": " + err.Error(), poll: true}
	}
	if err != nil {
		return "", terminal(core.ReasonInvalidReference, at+": "+err.Error())
	}
	target := &unstructured.Unstructured{}
	target.SetGroupVersionKind(gk.WithVersion(version))
	err = r.slimReader().Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, target)
	if client.IgnoreNotFound(err) != nil {
		return "", err
	}
	if err != nil {
		return "", &waitingError{message: fmt.Sprintf("%s names %s %s, which does not exist in namespace %s; nothing is sent until it does", at, gk.Kind, ref.Name, ns)}
	}
	id := statusID(target)
	if id == "" || !target.GetDeletionTimestamp().IsZero() {
		return "", &waitingError{message: fmt.Sprintf("%s names %s %s, which has no ARM id yet (status.id); nothing is sent until it has", at, gk.Kind, ref.Name)}
	}
	return id, nil
}

// kindNotServed is a reference to a kind the operator does not serve (yet:
// kinds are served as their CRDs are established, issue 30), which the
// object waits for, read again every Config.PollInterval, rather than a
// mistake it must fix: a kind installed later is served without a restart.
type kindNotServed struct{ kind string }

func (e *kindNotServed) Error() string {
	return fmt.Sprintf("no kind %s served by the operator (yet: is its CRD installed?); nothing is sent until it is", e.kind)
}

// refKind finds the kind a reference names among the operator's kinds,
// and checks it against the reference's allowed targets.
func (r *Reconciler) refKind(ref ObjectRef) (schema.GroupKind, string, error) {
	var found []schema.GroupKind
	for _, gvk := range r.kinds.list() {
		gk := gvk.GroupKind()
		if gk.Kind == ref.Kind && (ref.Group == "" || gk.Group == ref.Group) {
			found = append(found, gk)
		}
	}
	targets := r.refTargetsAt(ref.Path)
	switch {
	case len(found) == 0 && len(targets) > 0 && !slices.ContainsFunc(targets, func(t string) bool {
		g, k, _ := strings.Cut(t, "/")
		return k == ref.Kind && (ref.Group == "" || g == ref.Group)
	}):
		// Not a kind the field holds, served or not: the object must change.
		return schema.GroupKind{}, "", fmt.Errorf("no kind %s can be named here; allowed: %s", strings.TrimPrefix(ref.Group+"/"+ref.Kind, "/"), strings.Join(targets, ", "))
	case len(found) == 0:
		return schema.GroupKind{}, "", &kindNotServed{kind: strings.TrimPrefix(ref.Group+"/"+ref.Kind, "/")}
	case len(found) > 1:
		return schema.GroupKind{}, "", fmt.Errorf("kind %s is served in several groups: set group", ref.Kind)
	}
	gk := found[0]
	if len(targets) > 0 && !slices.Contains(targets, gk.Group+"/"+gk.Kind) {
		return schema.GroupKind{}, "", fmt.Errorf("a %s cannot be named here; allowed: %s", gk.Kind, strings.Join(targets, ", "))
	}
	v, _ := r.kinds.version(gk)
	return gk, v, nil
}

// refTargetsAt returns the allowed targets of the reference at a concrete
// path.
func (r *Reconciler) refTargetsAt(p descriptor.Path) []string {
	table := p.Table()
	for _, ref := range r.Desc.References {
		holder := ref.Path.Parent().Child(ref.RefField())
		if table.Equal(holder) || (ref.Map && table.Parent().Equal(holder)) {
			return ref.Targets
		}
	}
	return nil
}

// referrers lists the objects of the kind that reference target.
func (r *Reconciler) referrers(ctx context.Context, target client.Object) []reconcile.Request {
	gvk := target.GetObjectKind().GroupVersionKind()
	return r.indexed(ctx, target.GetNamespace(), refIndex, strings.ToLower(gvk.Kind)+"/"+target.GetName())
}

// indexTargets indexes the kind's objects by the targets their references
// name, when it has references.
func (r *Reconciler) indexTargets(ctx context.Context, indexer client.FieldIndexer, obj client.Object) error {
	if len(r.Desc.References) == 0 {
		return nil
	}
	return indexer.IndexField(ctx, obj, refIndex, func(o client.Object) []string {
		if u, ok := o.(*unstructured.Unstructured); ok {
			return refTargets(u)
		}
		return nil
	})
}
