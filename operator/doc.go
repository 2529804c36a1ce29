// Package operator composes the operator: one Config (with every default in
// one place, filled from flags and the environment), the ARM client and
// credential, the generic reconcilers (runtime/reconciler) and Actions
// (runtime/action) for the installed generated kinds, and optionally the
// admission and conversion webhooks (webhook). cmd/operator only calls it.
//
// # Kinds as their CRDs come and go
//
// The reconcilers of every selected kind (--kinds) are built at the start;
// a kind is served while its CRD is installed (kinds.go): the operator
// watches the metadata of CRDs and calls reconciler.Serving's Serve when a
// kind's CRD serves the version it reconciles, and Unserve when the CRD is
// gone, without a restart and without a log line for a kind whose CRD is
// not installed. WithKinds adds kinds beyond generated/apis (the generated
// tier's).
//
// # Layers
//
// It is the one layer above runtime/ and webhook/ that may import both, and
// the generated code: runtime never imports webhook or generated/. Example
// compositions (examples/composite) are not part of it; a build of an
// example adds its own with WithComposition.
package operator
