package reconciler

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// ownerAnyIndex is the field index of an extension kind's owner:
// "<group>/<kind>/<name>" (group and kind in lower case).
const ownerAnyIndex = "spec.owner.groupKindName"

// ownerKey is the value of ownerAnyIndex for an owner.
func ownerKey(group, kind, name string) string {
	return strings.ToLower(group) + "/" + strings.ToLower(kind) + "/" + name
}

// ownerTarget returns the kind of the custom resource spec.owner names
// (group and kind, or the Descriptor's owner kind when they are empty),
// with found false when spec.owner names no custom resource kind (an
// extension kind without group and kind, a kind whose owner is not
// generated). A kind that is no extension accepts group and kind only
// when they are its owner's.
func (r *Reconciler) ownerTarget(owner map[string]any) (gvk schema.GroupVersionKind, found bool, err error) {
	group, _ := owner["group"].(string)
	kind, _ := owner["kind"].(string)
	switch {
	case group == "" && kind == "":
		if r.Desc.OwnerKind == "" {
			return schema.GroupVersionKind{}, false, nil
		}
		return r.ownerGVK(), true, nil
	case r.Desc.Scope != descriptor.ScopeExtension && (!strings.EqualFold(group, r.Desc.OwnerGroup) || kind != r.Desc.OwnerKind):
		return gvk, false, terminal(core.ReasonOwnerKindMismatch, fmt.Sprintf("spec.owner names a %s/%s; the owner of a %s is a %s", group, kind, r.Desc.Kind, ownerLabel(r.Desc)))
	case kind == r.Desc.OwnerKind && strings.EqualFold(group, r.Desc.OwnerGroup) && r.OwnerVersion != "":
		return r.ownerGVK(), true, nil
	case group == "" || kind == "":
		return gvk, false, terminal(core.ReasonOwnerKindUnknown, "spec.owner needs both group and kind (or neither, and armId)")
	}
	gk := schema.GroupKind{Group: group, Kind: kind}
	if v, ok := r.kinds.version(gk); ok {
		return gk.WithVersion(v), true, nil
	}
	m, merr := r.Client.RESTMapper().RESTMapping(gk)
	if merr != nil {
		return gvk, false, terminal(core.ReasonOwnerKindUnknown, fmt.Sprintf("spec.owner names kind %s in group %s, which this cluster does not serve: %v", kind, group, merr))
	}
	return m.GroupVersionKind, true, nil
}

// extensionChildren lists the objects of an extension kind whose
// spec.owner names owner by group, kind and name.
func (r *Reconciler) extensionChildren(ctx context.Context, owner client.Object) []reconcile.Request {
	gvk := owner.GetObjectKind().GroupVersionKind()
	return r.indexed(ctx, owner.GetNamespace(), ownerAnyIndex, ownerKey(gvk.Group, gvk.Kind, owner.GetName()))
}

// indexAnyOwner indexes an extension kind's objects by the owner they
// name (group, kind and name): an owner of any kind finds what it owns
// (the fan-out passes it every served kind's events).
func (r *Reconciler) indexAnyOwner(ctx context.Context, indexer client.FieldIndexer, obj client.Object) error {
	return indexer.IndexField(ctx, obj, ownerAnyIndex, func(o client.Object) []string {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			return nil
		}
		g, k, n := specOwner(u)
		if k == "" || n == "" {
			return nil
		}
		return []string{ownerKey(g, k, n)}
	})
}
