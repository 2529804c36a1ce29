package configurator

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"reflect"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	// AnnotationRendered, on a rendered resource, lists its declared
	// resources as JSON [{apiVersion, kind, name}], so that a restarted
	// operator still prunes what is no longer declared.
	AnnotationRendered = "armature.dev/rendered-resources"
	// LabelRenderedBy, on a declared resource, is the uid of the resource
	// that declared it.
	LabelRenderedBy = "armature.dev/rendered-by"
)

// writeResources makes the declared resources exist and the others gone:
//
//  1. the annotation lists the union of what exists and what is declared
//     (so a crash after an apply still knows the new resource);
//  2. declared resources whose content changed since the last apply are
//     applied (all of them once after a restart);
//  3. resources no longer declared are deleted;
//  4. the annotation lists what is declared.
//
// Each step writes only when something differs.
func (r *Registry) writeResources(ctx context.Context, owner *unstructured.Unstructured, rec *Record, declared []*unstructured.Unstructured) error {
	key := RefOf(owner)
	desired, objs, err := r.prepare(owner, declared)
	if err != nil {
		return err
	}
	if !rec.annotatedKnown {
		rec.annotated, rec.annotatedKnown = annotated(owner), true
	}
	current := map[string]Child{}
	if rec.resourcesKnown {
		for _, c := range rec.Rendered.Resources {
			current[c.key()] = c
		}
	} else {
		for _, c := range rec.annotated {
			current[c.key()] = c
		}
		rec.resourcesKnown = true
	}
	defer func() { rec.Rendered.Resources = sortedChildren(current) }()

	union := map[string]Child{}
	for _, set := range [][]Child{rec.annotated, sortedChildren(current), desired} {
		for _, c := range set {
			union[c.key()] = Child{APIVersion: c.APIVersion, Kind: c.Kind, Name: c.Name}
		}
	}
	if err := r.annotate(ctx, owner, rec, sortedChildren(union)); err != nil {
		return err
	}
	for i, c := range desired {
		if cur, ok := current[c.key()]; ok && cur.Digest == c.Digest {
			continue
		}
		if err := r.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(objs[i]),
			client.FieldOwner(r.opts.fieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("apply %s %s: %w", c.Kind, c.Name, err)
		}
		r.countWrite(key, verbApply)
		current[c.key()] = c
	}
	want := map[string]bool{}
	for _, c := range desired {
		want[c.key()] = true
	}
	for k, c := range current {
		if want[k] {
			continue
		}
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(c.APIVersion)
		u.SetKind(c.Kind)
		u.SetNamespace(owner.GetNamespace())
		u.SetName(c.Name)
		err := r.client.Delete(ctx, u, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete %s %s: %w", c.Kind, c.Name, err)
		}
		r.countWrite(key, verbDelete)
		delete(current, k)
	}
	final := make([]Child, len(desired))
	for i, c := range desired {
		final[i] = Child{APIVersion: c.APIVersion, Kind: c.Kind, Name: c.Name}
	}
	return r.annotate(ctx, owner, rec, sortedChildren(toMap(final)))
}

// prepare sets owner reference and label on the declared resources and
// computes their digests; it fails on a resource declared twice.
func (r *Registry) prepare(owner *unstructured.Unstructured, declared []*unstructured.Unstructured) ([]Child, []*unstructured.Unstructured, error) {
	t := true
	ref := metav1.OwnerReference{
		APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(),
		Controller: &t, BlockOwnerDeletion: &t,
	}
	seen := map[string]bool{}
	children := make([]Child, 0, len(declared))
	for _, u := range declared {
		u.SetOwnerReferences([]metav1.OwnerReference{ref})
		l := u.GetLabels()
		if l == nil {
			l = map[string]string{}
		}
		l[LabelRenderedBy] = string(owner.GetUID())
		u.SetLabels(l)
		c := Child{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Name: u.GetName(), Digest: hashJSON(u.Object)}
		if seen[c.key()] {
			return nil, nil, fmt.Errorf("%s %s declared twice", c.Kind, c.Name)
		}
		seen[c.key()] = true
		children = append(children, c)
	}
	return children, declared, nil
}

// annotate writes the rendered-resources annotation when it differs.
func (r *Registry) annotate(ctx context.Context, owner *unstructured.Unstructured, rec *Record, set []Child) error {
	if reflect.DeepEqual(set, rec.annotated) || (len(set) == 0 && len(rec.annotated) == 0) {
		return nil
	}
	var value any // null removes the annotation
	if len(set) > 0 {
		b, _ := json.Marshal(set)
		value = string(b)
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{AnnotationRendered: value}}})
	if err := r.client.Patch(ctx, target(owner), client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("annotate %s: %w", RefOf(owner), err)
	}
	r.countWrite(RefOf(owner), verbAnnotate)
	rec.annotated = set
	return nil
}

// writeStatus patches the status keys Render returned that differ from
// what was last written (after a restart: from the object's status), and
// removes keys Render wrote before and no longer returns. Keys Render never
// wrote are left alone.
func (r *Registry) writeStatus(ctx context.Context, owner *unstructured.Unstructured, rec *Record, status Status) error {
	if status == nil {
		return nil
	}
	want, err := normal(status)
	if err != nil {
		return fmt.Errorf("status of %s: %w", RefOf(owner), err)
	}
	var base map[string]any
	if rec.statusKnown {
		base = rec.Rendered.Status
	} else {
		cur, _ := owner.Object["status"].(map[string]any)
		base = map[string]any{}
		for k := range want {
			if v, ok := cur[k]; ok {
				base[k] = v
			}
		}
		if base, err = normal(base); err != nil {
			return err
		}
	}
	patch := mergePatch(base, want)
	if len(patch) > 0 {
		key := RefOf(owner)
		r.expectEcho(key, want)
		body, _ := json.Marshal(map[string]any{"status": patch})
		if err := r.client.Status().Patch(ctx, target(owner), client.RawPatch(types.MergePatchType, body)); err != nil {
			return fmt.Errorf("patch status of %s: %w", key, err)
		}
		r.countWrite(key, verbStatus)
	}
	rec.Rendered.Status, rec.statusKnown = want, true
	return nil
}

// expectEcho notes the status about to be written, before the write, so
// that its watch event is recognised however fast it arrives.
func (r *Registry) expectEcho(key Ref, st Status) {
	r.recMu.Lock()
	defer r.recMu.Unlock()
	e := r.echoes[key]
	owned := make(map[string]bool, len(e.owned)+len(st))
	for k := range e.owned {
		owned[k] = true
	}
	for k := range st {
		owned[k] = true
	}
	r.echoes[key] = echo{status: st, owned: owned}
}

// mergePatch is the JSON merge patch (RFC 7396) from a to b.
func mergePatch(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, vb := range b {
		va, ok := a[k]
		if ok && reflect.DeepEqual(va, vb) {
			continue
		}
		ma, okA := va.(map[string]any)
		mb, okB := vb.(map[string]any)
		if ok && okA && okB {
			out[k] = mergePatch(ma, mb)
			continue
		}
		out[k] = vb
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out[k] = nil
		}
	}
	return out
}

// normal is v after a JSON round trip: numbers are float64, typed values
// are maps, so it compares with what comes back from the apiserver.
func normal(v map[string]any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

// target is a bare object naming owner, for a patch that must not modify
// the cache's copy.
func target(owner *unstructured.Unstructured) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(owner.GroupVersionKind())
	u.SetNamespace(owner.GetNamespace())
	u.SetName(owner.GetName())
	return u
}

// annotated reads the rendered-resources annotation.
func annotated(owner *unstructured.Unstructured) []Child {
	var out []Child
	if v, ok := owner.GetAnnotations()[AnnotationRendered]; ok {
		_ = json.Unmarshal([]byte(v), &out) // a broken annotation prunes nothing
	}
	return sortedChildren(toMap(out))
}

func toMap(cs []Child) map[string]Child {
	m := make(map[string]Child, len(cs))
	for _, c := range cs {
		m[c.key()] = c
	}
	return m
}

func sortedChildren(m map[string]Child) []Child {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Child, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k])
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func hashJSON(v any) string {
	b, _ := json.Marshal(v)
	h := fnv.New64a()
	_, _ = h.Write(b)
	return fmt.Sprintf("%016x", h.Sum64())
}
