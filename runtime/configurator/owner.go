package configurator

import "k8s.io/apimachinery/pkg/runtime/schema"

// Owner is what a resource's spec.owner names, resolved.
type Owner struct {
	// Name is spec.owner.name: a resource of the owner kind in the same
	// namespace. Empty when the owner is given by ARMID or not at all.
	Name string
	// ARMID is spec.owner.armId: an owner the operator does not manage.
	ARMID string
	// Resource is the owner named by Name as read; nil when it does not
	// exist (or Name is empty).
	Resource *Resource
}

// Ready reports whether the named owner exists with condition Ready=True.
// An owner given by ARMID is outside the operator and counts as ready; no
// owner at all is not ready.
func (o Owner) Ready() bool {
	if o.ARMID != "" {
		return true
	}
	return o.Resource != nil && o.Resource.Ready()
}

// ID is the owner's ARM id: ARMID, or status.id of the named owner ("" when
// it has none yet).
func (o Owner) ID() string {
	if o.ARMID != "" {
		return o.ARMID
	}
	if o.Resource == nil {
		return ""
	}
	return o.Resource.String("status.id")
}

// OwnerOf resolves in's spec.owner. A named owner of kind ownerGVK is read
// through ix, so the owner's changes (turning Ready, getting its id, being
// deleted) re-select in, and only the resources that name it. spec.owner.armId
// wins over spec.owner.name and reads nothing.
func OwnerOf(ix *Tracker, in *Resource, ownerGVK schema.GroupVersionKind) Owner {
	ref, _ := in.Spec["owner"].(map[string]any)
	var o Owner
	o.ARMID, _ = ref["armId"].(string)
	if o.ARMID != "" {
		return o
	}
	o.Name, _ = ref["name"].(string)
	if o.Name != "" {
		o.Resource = ix.Of(ownerGVK, in.Namespace+"/"+o.Name)
	}
	return o
}
