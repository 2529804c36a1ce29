package core

// ResourceReference names the owner of a resource: either a custom resource
// of the owner's kind in the same namespace, or an ARM id.
type ResourceReference struct {
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
