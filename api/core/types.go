package core

// ResourceReference names the owner of a resource: either a custom resource
// in the same namespace, or an ARM id. The custom resource is of the
// owner's kind; for an extension resource (a role assignment, a lock, a
// diagnostic setting: its owner can be any ARM resource) it is of any
// armature kind, named by Group and Kind.
type ResourceReference struct {
	// Group is the API group of the owner's kind, e.g.
	// storage.azure.armature.dev. Required with Kind for an extension
	// resource's owner; for other kinds empty (the owner's kind) or the
	// owner kind's group.
	// +optional
	Group string `json:"group,omitempty"`
	// Kind is the owner's kind, e.g. StorageAccount. Required with Group
	// for an extension resource's owner; for other kinds empty (the owner's
	// kind) or the owner's kind.
	// +optional
	Kind string `json:"kind,omitempty"`
	// Name of a custom resource of the owner's kind in the same namespace.
	// +optional
	Name string `json:"name,omitempty"`
	// ARMID is the ARM id of an owner that is not managed by this operator,
	// e.g. /subscriptions/<id>/resourceGroups/<name>.
	// +optional
	ARMID string `json:"armId,omitempty"`
}

// DeepCopyInto copies the receiver into out.
func (in *ResourceReference) DeepCopyInto(out *ResourceReference) { *out = *in }

// DeepCopy returns a copy of the receiver.
func (in *ResourceReference) DeepCopy() *ResourceReference {
	if in == nil {
		return nil
	}
	out := new(ResourceReference)
	in.DeepCopyInto(out)
	return out
}

// SecretKeyReference points at one key of a Kubernetes Secret in the same
// namespace. Secret values are read when a request is sent to Azure and are
// never written to the custom resource, its annotations, events or logs.
type SecretKeyReference struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Key within the Secret.
	// +kubebuilder:validation:MinLength=1
	Key string `json:"key"`
}

// DeepCopyInto copies the receiver into out.
func (in *SecretKeyReference) DeepCopyInto(out *SecretKeyReference) { *out = *in }

// DeepCopy returns a copy of the receiver.
func (in *SecretKeyReference) DeepCopy() *SecretKeyReference {
	if in == nil {
		return nil
	}
	out := new(SecretKeyReference)
	in.DeepCopyInto(out)
	return out
}
