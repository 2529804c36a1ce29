// Package webhook will hold the one validating and one defaulting admission
// handler that serve every generated kind from its Descriptor (see
// ../shared/DESIGN.md and the webhook issue). It is empty until then; the
// generated CRDs already carry CEL transition rules that block edits of
// create-only fields without it.
package webhook
