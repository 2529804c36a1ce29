package core

// The vocabulary of armature objects: the annotations, the finalizer, the
// condition types and reasons and the event reasons that the reconciler,
// the webhook, the Action controller, the importer and users read. They
// are part of the API: renaming one breaks clusters.

// Annotations, labels and the finalizer the reconciler uses.
const (
	// AnnotationPolicy selects the reconcile policy.
	AnnotationPolicy = "armature.dev/reconcile-policy"
	// AnnotationSyncPeriod overrides the sync period (a Go duration).
	AnnotationSyncPeriod = "armature.dev/sync-period"
	// AnnotationRefresh is set on an object by an Action that succeeded
	// on its resource ("<action name> <completion time>"): the resource
	// changed outside a write of the reconciler (keys rotated), so it is
	// read again and its outputs (spec.operatorSpec) are written anew.
	AnnotationRefresh = "armature.dev/refresh"
	// AnnotationLastApplied holds the body last sent to ARM (secret values
	// replaced by their keyed digest); a large body compressed ("gzip:"),
	// one too large even so as its digest ("digest:"; records.go).
	AnnotationLastApplied = "armature.dev/last-applied"
	// AnnotationARMID is the ARM id the object created (recorded before
	// its first PUT: the intent to create) or adopted, sealed by
	// AnnotationSeal. The reconciler acts on it only when the seal
	// verifies (seal.go).
	AnnotationARMID = "armature.dev/arm-id"
	// AnnotationOperation holds the operation in flight: verb, ARM id,
	// resume token and the body it applies, sealed to the object.
	AnnotationOperation = "armature.dev/operation"
	// AnnotationPlan is where the plan policy writes what would be sent.
	AnnotationPlan = "armature.dev/plan"
	// Finalizer keeps the custom resource until Azure is cleaned up.
	Finalizer = "armature.dev/finalizer"
)

// AnnotationSeal binds AnnotationARMID to the object: the HMAC of the
// object's UID and the id.
const AnnotationSeal = "armature.dev/seal"

// AnnotationAPIVersion pins the version a resource is reconciled in: a
// Kubernetes version of its kind (v20230101) or its ARM api-version
// (2023-01-01). Without it, the version the spec was last written in
// (from metadata.managedFields) is used, else the group's preferred
// version (Config.PreferredVersions), else the storage version.
const AnnotationAPIVersion = "armature.dev/api-version"

// Condition types and reasons. Ready summarises; ActionRequired separates
// "you must act" (True: a terminal ARM error, a missing adoption target, a
// failed provisioning) from "the operator is retrying or waiting" (False).
const (
	ConditionReady          = "Ready"
	ConditionActionRequired = "ActionRequired"
	ReasonNone              = "None"
	ReasonSucceeded         = "Succeeded"
	ReasonReconciling       = "Reconciling"
	ReasonWaitingForOwner   = "WaitingForOwner"
	// ReasonWaitingForReference: a spec reference names an object that
	// does not exist or has no ARM id yet; nothing is sent until it has.
	ReasonWaitingForReference = "WaitingForReference"
	// ReasonInvalidReference: a spec reference names no kind the operator
	// serves, or a kind the field cannot hold.
	ReasonInvalidReference = "InvalidReference"
	// ReasonWaitingForDependents: a deleted object's ARM DELETE waits
	// until the objects that reference it are gone (or no longer do).
	ReasonWaitingForDependents = "WaitingForDependents"
	// ReasonInvalidOutputs: spec.operatorSpec names an output that cannot
	// be written (a secret value bound for a ConfigMap, a key twice).
	ReasonInvalidOutputs = "InvalidOutputs"
	// ReasonOutputConflict: another object writes a key of a ConfigMap or
	// Secret this object\'s outputs name.
	ReasonOutputConflict = "OutputConflict"
	// ReasonInvalidValuesFrom: a spec.valuesFrom entry cannot be resolved
	// as written (no source, a Secret for a property that is not secret).
	ReasonInvalidValuesFrom = "InvalidValuesFrom"
	// ReasonRequiredMissing: the resolved body leaves out a value the ARM
	// API requires (the spec sets it nowhere, and no reference or
	// valuesFrom entry supplies it); nothing is sent.
	ReasonRequiredMissing       = "RequiredMissing"
	ReasonAzureResourceNotFound = "AzureResourceNotFound"
	ReasonPlan                  = "Plan"
	ReasonFailed                = "Failed"
	// ReasonUnknownPolicy: the reconcile-policy annotation is not a policy;
	// nothing is sent to ARM until it is.
	ReasonUnknownPolicy = "UnknownPolicy"
)

// Reasons of the claim checks.
const (
	// ReasonAzureResourceExists: the resource exists in Azure and the
	// object did not create it; nothing is written. spec.resourceID adopts
	// it.
	ReasonAzureResourceExists = "AzureResourceExists"
	// ReasonClaimedByAnotherObject: another object of the kind manages the
	// same ARM id; nothing is written.
	ReasonClaimedByAnotherObject = "ClaimedByAnotherObject"
)

// Reasons of an owner that cannot be resolved; the user must change
// spec.owner.
const (
	// ReasonOwnerRequired: spec.owner names no owner.
	ReasonOwnerRequired = "OwnerRequired"
	// ReasonOwnerKindUnknown: spec.owner.group/kind name no kind the
	// cluster serves.
	ReasonOwnerKindUnknown = "OwnerKindUnknown"
	// ReasonOwnerKindMismatch: spec.owner.group/kind of a kind that is no
	// extension resource name another kind than its owner's.
	ReasonOwnerKindMismatch = "OwnerKindMismatch"
)

// Reasons of the loop guards.
const (
	// ReasonWriteLoop: the object's writes to ARM did not settle it;
	// nothing more is sent until its spec changes.
	ReasonWriteLoop = "WriteLoop"
	// ReasonOperationLost: ARM no longer knows an operation in flight and
	// the resource is not there: the write is retried with backoff.
	ReasonOperationLost = "OperationLost"
	// ReasonOwnerCycle: the chain of spec.owner comes back to the object.
	ReasonOwnerCycle = "OwnerCycle"
	// ReasonMalformedAnswer: ARM's answer was not a JSON object
	// (truncated, an array): retried with backoff.
	ReasonMalformedAnswer = "MalformedAnswer"
)

// EventOperationLost: ARM answered 404 to the poll of an operation in
// flight; the resource was read instead.
const EventOperationLost = "OperationLost"

// ReasonInvalidName: a name or id of the spec is one ARM would refuse (or
// that would make the id name another resource: "..", "/"). The webhook
// refuses it at admission; the reconciler checks again, for clusters
// without the webhook.
const ReasonInvalidName = "InvalidName"

// Where an object's credential comes from.
const (
	// CredentialSecret is the name of a namespace's credential Secret: the
	// objects of the namespace use it instead of the operator's default.
	CredentialSecret = "armature-credential"
	// AnnotationCredential names a Secret in the object's own namespace
	// holding the object's credential (a name, never namespace/name).
	AnnotationCredential = "armature.dev/credential"
)

// The keys of a credential Secret. TenantID, ClientID, SubscriptionID and
// one of ClientSecret or FederatedTokenFile are required.
const (
	KeyTenantID           = "tenantId"
	KeyClientID           = "clientId"
	KeySubscriptionID     = "subscriptionId"
	KeyClientSecret       = "clientSecret"
	KeyFederatedTokenFile = "federatedTokenFile"
	// KeyCloud optionally names the principal's Azure cloud (AzurePublic,
	// AzureUSGovernment, AzureChina: arm.LookupCloud); default the
	// operator's. A name only, never a URL: no Secret writer chooses where
	// a token goes.
	KeyCloud = "cloud"
)

// Condition reasons of credential problems.
const (
	// ReasonCredentialNotFound: the Secret the annotation names does not
	// exist, or the namespace has no credential Secret and the operator's
	// default does not serve it (retried slowly: creating it cures it).
	ReasonCredentialNotFound = "CredentialNotFound"
	// ReasonCredentialInvalid: the Secret lacks a key or has a bad value
	// (retried slowly: fixing it cures it).
	ReasonCredentialInvalid = "CredentialInvalid"
	// ReasonCredentialRefused: the annotation is not the name of a Secret
	// in the object's namespace (terminal: only a change of the object
	// cures it). A Secret of another namespace is never read.
	ReasonCredentialRefused = "CredentialRefused"
)

// Event reasons.
const (
	EventCreated = "Created"
	EventPatched = "Patched"
	EventUpdated = "Updated"
	EventDeleted = "Deleted"
	// EventOperationStarted is an Action's long-running operation started.
	EventOperationStarted = "OperationStarted"
	EventDriftDetected    = "DriftDetected"
	EventDetached         = "Detached"
	EventNoDelete         = "NoDelete"
	// EventOperationDiscarded: the operation annotation was not followed
	// (not sealed to the object, or polling a host other than ARM).
	EventOperationDiscarded = "OperationDiscarded"
	// EventRecordIgnored: the ARM id annotation is not sealed to the
	// object: nothing is deleted on its word.
	EventRecordIgnored = "RecordIgnored"
	// EventRegisteringProvider: the operator asked ARM to register the
	// subscription with a resource provider (--register-providers).
	EventRegisteringProvider = "RegisteringProvider"
)

// Redacted stands for a secret value in what the operator shows: the plan
// policy's annotation and status, events.
const Redacted = "(redacted)"
