package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Action runs one ARM POST action on one resource, once. A new run is a
// new Action: the spec cannot change after creation.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=armature;azure,shortName=armaction
// +kubebuilder:printcolumn:name="Kind",type="string",JSONPath=".spec.target.kind"
// +kubebuilder:printcolumn:name="Target",type="string",JSONPath=".spec.target.name"
// +kubebuilder:printcolumn:name="Action",type="string",JSONPath=".spec.action"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.phase"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type Action struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ActionSpec   `json:"spec"`
	Status ActionStatus `json:"status,omitempty"`
}

// ActionList is a list of Action.
// +kubebuilder:object:root=true
type ActionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Action `json:"items"`
}

// ActionSpec is the request: which action, on what, with which body.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: an Action runs once; create a new Action to run it again"
type ActionSpec struct {
	// Target is the resource the action runs on.
	Target ActionTarget `json:"target"`

	// Action is the name of the POST action as the swagger defines it for
	// the target's resource type: the path segment after the resource,
	// e.g. regenerateKey, listKeys, failover, restart.
	// +kubebuilder:validation:MinLength=1
	Action string `json:"action"`

	// Parameters is the request body of the action, in ARM's shape (e.g.
	// {keyName: key1}). It is checked against the action's request schema.
	// Defaults to no body.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Parameters *apiextensionsv1.JSON `json:"parameters,omitempty"`

	// SecretParameters put values read from Secrets into the request body
	// at the time it is sent (e.g. osProfile.adminPassword): the values
	// are never written to the Action. Defaults to none.
	// +listType=map
	// +listMapKey=path
	// +optional
	SecretParameters []SecretParameter `json:"secretParameters,omitempty"`

	// Query are the action's query parameters other than api-version
	// (e.g. failoverType: Planned). Defaults to none.
	// +optional
	Query map[string]string `json:"query,omitempty"`

	// ResultSecret, when set, is the Secret the response is written to:
	// every secret field (keys, passwords, tokens) under its path, and
	// the whole response as response.json. The Secret is created and owned
	// by the Action. Secret values never go to status.
	// +optional
	ResultSecret *ResultReference `json:"resultSecret,omitempty"`

	// ResultConfigMap, when set, is the ConfigMap the non-secret fields
	// of the response are written to, under their paths, and as
	// response.json. It is created and owned by the Action.
	// +optional
	ResultConfigMap *ResultReference `json:"resultConfigMap,omitempty"`
}

// ActionTarget names the resource of an action: a generated kind's
// custom resource in the Action's namespace (kind and name), or an ARM id.
// +kubebuilder:validation:XValidation:rule="has(self.armId) != (has(self.kind) && has(self.name))",message="give either kind and name, or armId"
type ActionTarget struct {
	// Group is the API group of the kind, e.g. storage.azure.armature.dev.
	// Defaults to the only generated group with that kind.
	// +optional
	Group string `json:"group,omitempty"`
	// Kind is a generated kind, e.g. StorageAccount.
	// +optional
	Kind string `json:"kind,omitempty"`
	// Name of the custom resource in the Action's namespace.
	// +optional
	Name string `json:"name,omitempty"`
	// ARMID is the ARM id of a resource that is not a custom resource
	// here; its type must be one the operator generates.
	// +kubebuilder:validation:Pattern=`^/`
	// +optional
	ARMID string `json:"armId,omitempty"`
}

// SecretParameter is one request body value read from a Secret.
type SecretParameter struct {
	// Path is the dotted path of the value in the request body, e.g.
	// osProfile.adminPassword.
	// +kubebuilder:validation:MinLength=1
	Path string `json:"path"`
	// SecretKeyRef is the Secret key holding the value.
	SecretKeyRef SecretKeySelector `json:"secretKeyRef"`
}

// SecretKeySelector is one key of a Secret in the Action's namespace.
type SecretKeySelector struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Key within the Secret.
	// +kubebuilder:validation:MinLength=1
	Key string `json:"key"`
}

// ResultReference names a Secret or ConfigMap in the Action's namespace.
type ResultReference struct {
	// Name of the object.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// ActionPhase is where an Action is in its one run.
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed
type ActionPhase string

// The phases: Pending → Running → Succeeded or Failed.
const (
	// PhasePending: not sent yet (waiting for the target to be Ready).
	PhasePending ActionPhase = "Pending"
	// PhaseRunning: the request is being sent or its operation runs.
	PhaseRunning ActionPhase = "Running"
	// PhaseSucceeded: ARM answered success; the results are written.
	PhaseSucceeded ActionPhase = "Succeeded"
	// PhaseFailed: ARM refused or failed the action, or its outcome is
	// unknown; the Action is not sent again.
	PhaseFailed ActionPhase = "Failed"
)

// ActionStatus is the outcome of the run.
type ActionStatus struct {
	// Phase is Pending, Running, Succeeded or Failed.
	// +optional
	Phase ActionPhase `json:"phase,omitempty"`

	// Conditions: Ready is True when the action succeeded; its reason
	// says why not otherwise (WaitingForTarget, Running, an ARM error
	// code, OutcomeUnknown).
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// TargetID is the ARM id of the target resource.
	// +optional
	TargetID string `json:"targetId,omitempty"`

	// APIVersion is the ARM api-version the action is sent with.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`

	// StartTime is when the Action left Pending: the target was Ready and
	// the request was about to be sent.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// SentAt is when the POST was sent. It is recorded before the request
	// goes out, so an operator that restarts never sends it again.
	// +optional
	SentAt *metav1.Time `json:"sentAt,omitempty"`

	// CompletionTime is when the action succeeded or failed.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// Operation is the long-running operation the action started, if any.
	// +optional
	Operation *ActionOperation `json:"operation,omitempty"`

	// Error is ARM's error when the action failed.
	// +optional
	Error *ActionError `json:"error,omitempty"`

	// Response is the action's response without its secret fields.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Response *apiextensionsv1.JSON `json:"response,omitempty"`

	// SecretKeys are the keys written to spec.resultSecret (names only).
	// +optional
	SecretKeys []string `json:"secretKeys,omitempty"`
}

// ActionOperation is a long-running ARM operation in flight.
type ActionOperation struct {
	// ResumeToken is azcore's resume token: polling continues from it
	// after an operator restart, without sending the action again.
	ResumeToken string `json:"resumeToken"`
	// StartedAt is when the operation started.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
}

// ActionError is an ARM error answer.
type ActionError struct {
	// Status is the HTTP status (0 when ARM did not answer).
	// +optional
	Status int `json:"status,omitempty"`
	// Code is ARM's error code, e.g. InvalidRequestContent.
	Code string `json:"code"`
	// Message is ARM's error message.
	// +optional
	Message string `json:"message,omitempty"`
	// Target is the property ARM names, if any.
	// +optional
	Target string `json:"target,omitempty"`
}
