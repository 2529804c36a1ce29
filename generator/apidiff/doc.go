// Package apidiff reports what changes for users of the generated CRDs when a
// resource provider moves from one api-version to another: per kind, the
// properties added and removed, class changes, enum values, newly required
// fields and type changes, and which of them are breaking.
//
// # Input
//
// The report is built from what the generator understood, not from the Go
// code it writes: two models (generator/model), one per api-version, each
// produced by the same analysis (load → tree → classify → model). Kinds are
// matched by ARM resource type, case-insensitively
// (Microsoft.Storage/storageAccounts/blobServices/containers), so a kind
// whose Go name changes is still compared with itself. The package imports
// only the stage packages, so that package generator can call it.
//
// Per kind, every property path of the classification table (classify.Table:
// `properties.networkAcls.ipRules[*].action`) is one row: its class and the
// rule that decided it, whether the PUT body requires it, and its JSON type.
// Paths below the spec (the model's spec struct, walked along the same
// paths) add the Go-shaped type (int32 and int64 differ) and the enum with
// its values and whether it is closed. Properties an override hides are not
// in the CRD and count as absent.
//
// # What is breaking
//
// A change is breaking when a manifest, or a program reading the custom
// resource, that worked with the old version can fail with the new one:
//
//   - a resource type removed: its CRD is gone;
//   - a kind renamed, or its owner type or scope changed: manifests name
//     another kind or owner;
//   - a property removed (spec or status): a manifest that sets it is
//     rejected, a reader of status no longer finds it;
//   - a property added that the PUT body requires, or an existing property
//     that becomes required: manifests without it are rejected;
//   - a class change from a spec class (writable, createOnly, writeOnly,
//     secret) to readOnly: it can no longer be set;
//   - writable or writeOnly → createOnly: a change after creation is
//     rejected by the CEL rule and the webhook;
//   - becoming secret, or ceasing to be one: the spec field changes shape
//     between a value and a Secret reference;
//   - becoming writeOnly (from anything but secret): ARM no longer returns
//     it, so status stops reporting it;
//   - a type change: the field's JSON or Go type differs;
//   - an enum value removed, or an open enum (x-ms-enum modelAsString) that
//     becomes closed: manifests with other values are rejected.
//
// Everything else is reported without the mark: added optional properties,
// createOnly → writable, readOnly → writable or createOnly, writeOnly →
// writable, enum values added, an enum that opens, a property that stops
// being required.
//
// # Folding
//
// A change that follows from its parent's is folded into the parent's line
// with a count ("and 12 below"): the properties below an added or removed
// object, or below a property whose type changed; the class changes below a
// property whose class changed the same way (a createOnly object makes
// everything below it createOnly).
//
// # Output
//
// Report.Write prints one block per changed kind and a summary line;
// Report.WriteJSON prints the same as JSON. The order is deterministic: kinds
// by ARM type, changes by path, then by the order of the Op constants.
package apidiff
