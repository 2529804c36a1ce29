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

// OperatorSpec is spec.operatorSpec of every generated kind: what the
// operator does with the resource beyond sending its spec to Azure. It is
// never sent to ARM.
type OperatorSpec struct {
	// IgnoreChanges are property paths of the spec, from the ARM body root
	// in the generator's text form (`armature inspect --properties`):
	// `tags`, `tags.costCenter`, `properties.agentPoolProfiles[*].count`
	// (`[*]` every item of an array, `.*` every value of a map). Their
	// values are sent when the resource is created and never corrected or
	// sent again afterwards: what another system manages (an autoscaler's
	// node count, tags Azure Policy writes). Drift at these paths is still
	// reported (the Ready condition, armature_drift_ignored_total, the plan
	// policy). A path the kind does not have, or a read-only one, is
	// refused at admission. Docs: docs/ignore-changes.md.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=512
	IgnoreChanges []string `json:"ignoreChanges,omitempty"`
	// ConfigMaps are values of the object written into ConfigMaps of its
	// namespace for workloads to read: value is a path into the object
	// (status.id, status.properties.primaryEndpoints.blob). Docs:
	// docs/references.md.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	ConfigMaps []OutputRef `json:"configMaps,omitempty"`
	// Secrets are values written into Secrets of the object's namespace:
	// a path into the object, or into the answer of one of the kind's list
	// actions (listKeys.keys[0].value). A value from an action goes only
	// to a Secret.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Secrets []OutputRef `json:"secrets,omitempty"`
}

// OutputRef is one value written to a ConfigMap or Secret key. One object
// writes a key: a second object naming the same key is refused.
type OutputRef struct {
	// Name of the ConfigMap or Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key in its data.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
	// Value is the path of the value: status.…, spec.…, or <listAction>.….
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Value string `json:"value"`
}

// DeepCopyInto copies the receiver into out.
func (in *OperatorSpec) DeepCopyInto(out *OperatorSpec) {
	*out = *in
	if in.IgnoreChanges != nil {
		out.IgnoreChanges = append([]string(nil), in.IgnoreChanges...)
	}
	if in.ConfigMaps != nil {
		out.ConfigMaps = append([]OutputRef(nil), in.ConfigMaps...)
	}
	if in.Secrets != nil {
		out.Secrets = append([]OutputRef(nil), in.Secrets...)
	}
}

// DeepCopy returns a copy of the receiver.
func (in *OperatorSpec) DeepCopy() *OperatorSpec {
	if in == nil {
		return nil
	}
	out := new(OperatorSpec)
	in.DeepCopyInto(out)
	return out
}

// ObjectReference names another custom resource of the operator in the
// same namespace, in place of an ARM id: the operator sends that object's
// status.id (and waits while it has none). Docs: docs/references.md.
type ObjectReference struct {
	// Group is the API group of the kind, e.g. network.azure.armature.dev;
	// may be left out when one group serves the kind.
	// +optional
	Group string `json:"group,omitempty"`
	// Kind is the kind, e.g. Subnet.
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`
	// Name of the object in this namespace.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// DeepCopyInto copies the receiver into out.
func (in *ObjectReference) DeepCopyInto(out *ObjectReference) { *out = *in }

// DeepCopy returns a copy of the receiver.
func (in *ObjectReference) DeepCopy() *ObjectReference {
	if in == nil {
		return nil
	}
	out := new(ObjectReference)
	in.DeepCopyInto(out)
	return out
}

// ValueFrom sets the spec value at Path from another object's field, a
// ConfigMap key or a Secret key (exactly one). The operator reads it at
// each reconcile and waits while it is not there. Docs:
// docs/references.md.
type ValueFrom struct {
	// Path is the spec property the value goes to, from the ARM body root
	// as `armature inspect --properties` prints it
	// (properties.principalId).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Path string `json:"path"`
	// From is a field of another object of the operator in this
	// namespace.
	// +optional
	From *FieldReference `json:"from,omitempty"`
	// ConfigMapKeyRef is a key of a ConfigMap in this namespace.
	// +optional
	ConfigMapKeyRef *KeyReference `json:"configMapKeyRef,omitempty"`
	// SecretKeyRef is a key of a Secret in this namespace; only for a
	// secret property (its value is never stored on the object).
	// +optional
	SecretKeyRef *KeyReference `json:"secretKeyRef,omitempty"`
}

// FieldReference is a field of another object of the operator.
type FieldReference struct {
	// Group of the kind; may be left out when one group serves the kind.
	// +optional
	Group string `json:"group,omitempty"`
	// Kind, e.g. UserAssignedIdentity.
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`
	// Name of the object in this namespace.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Field is the path of the value in that object
	// (status.properties.principalId, status.id).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Field string `json:"field"`
}

// KeyReference is a key of a ConfigMap or Secret.
type KeyReference struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +kubebuilder:validation:MinLength=1
	Key string `json:"key"`
}

// DeepCopyInto copies the receiver into out.
func (in *ValueFrom) DeepCopyInto(out *ValueFrom) {
	*out = *in
	if in.From != nil {
		out.From = new(FieldReference)
		*out.From = *in.From
	}
	if in.ConfigMapKeyRef != nil {
		out.ConfigMapKeyRef = new(KeyReference)
		*out.ConfigMapKeyRef = *in.ConfigMapKeyRef
	}
	if in.SecretKeyRef != nil {
		out.SecretKeyRef = new(KeyReference)
		*out.SecretKeyRef = *in.SecretKeyRef
	}
}

// DeepCopy returns a copy of the receiver.
func (in *ValueFrom) DeepCopy() *ValueFrom {
	if in == nil {
		return nil
	}
	out := new(ValueFrom)
	in.DeepCopyInto(out)
	return out
}
