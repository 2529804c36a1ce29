// Command armature generates Kubernetes CRDs and Go types from Azure Resource
// Manager swagger, and shows what it understood.
//
//	armature generate [--config specs/armature.yaml] [--out DIR] [--spec-root DIR] [FILE.json ...]
//	armature inspect [--json] [--properties | --references] [--kind KIND] [--config FILE] [--spec-root DIR] [FILE.json ...]
//	armature check-examples [--crds DIR] [--min-ratio R] [--config FILE] [--spec-root DIR] [FILE.json ...]
//	armature diff [--json] [--fail-on-breaking] [--spec-root DIR] OLD NEW
//	armature sweep [--json FILE] [--markdown FILE] [--min-clean R] [--min-examples R] [--all-versions] [-j N] DIR
//	armature tier [--out DIR] [--crds DIR] [--manifest FILE] [--update] [--check-only] [-j N] DIR
//
// With swagger files and no --config, every resource in those files is used
// and the files are read relative to the spec root (or as given, when they
// exist). With a config, its include, exclude, overrides and references
// apply (docs/overrides.md).
//
// inspect --references lists, per kind, the fields of the spec that hold an
// ARM resource id (generator/refs, docs/references.md): the rule that found
// each, its target types and evidence.
//
// tier generates the generated tier (docs/tiers.md): a sweep of the corpus
// DIR kept in the Go module tier/, the CRDs of every kind the curated tier
// does not have under config/crd/generated, tier/apis/registry.go, and a
// check against the committed manifest tier/kinds.tsv (exit 3 when it
// differs; --update rewrites it).
//
// diff reports the API changes between two api-versions of the same
// resource types (docs/api-diff.md). Its exit status is 0, or 3 with
// --fail-on-breaking when a change is breaking; like the other commands, 1
// on an error and 2 on a usage error.
package main
