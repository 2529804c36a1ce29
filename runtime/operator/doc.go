// Package operator wires the manager: one Config (with every default in
// one place, filled from flags and the environment), the ARM client and
// credential, the generic reconcilers for the installed kinds, and
// optionally the admission webhook. cmd/operator only calls it.
package operator
