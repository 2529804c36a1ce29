// Package core holds what every generated kind shares, by hand: the owner
// reference, the Secret key reference and spec.operatorSpec (part of the
// CRD schemas, so changing them changes every generated CRD), and the
// vocabulary of armature objects — the reconcile policy and its parser,
// annotation names, the finalizer, condition types and reasons, event
// reasons, the credential Secret's names. It is a leaf: the reconciler, the
// webhook, the Action controller and the importer import it, never one
// another for these names.
// +kubebuilder:object:generate=false
package core
