// Package core holds the hand-written types that every generated kind shares:
// the owner reference and the Secret key reference. They are part of the
// CRD schemas, so changing them changes every generated CRD.
// +kubebuilder:object:generate=false
package core
