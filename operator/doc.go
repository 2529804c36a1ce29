// Package operator composes the operator: one Config (with every default in
// one place, filled from flags and the environment), the ARM client and
// credential, the generic reconcilers (runtime/reconciler) and Actions
// (runtime/action) for the installed generated kinds, and optionally the
// admission and conversion webhooks (webhook). cmd/operator only calls it.
//
// # Layers
//
// It is the one layer above runtime/ and webhook/ that may import both, and
// the generated code: runtime never imports webhook or generated/. Example
// compositions (examples/composite) are not part of it; a build of an
// example adds its own with WithComposition.
package operator
