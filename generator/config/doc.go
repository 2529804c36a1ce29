// Package config reads specs/armature.yaml, the file that says what the
// generator generates: which swagger files, which API group domain, where the
// output goes, which resource types to generate (include) or leave out
// (exclude), the overrides that correct the swagger per kind and property
// path, and the references entries that correct the detection of ARM-id
// fields — every entry with a reason (because). docs/overrides.md is the
// reference of the file.
//
// # Checking
//
// Load rejects unknown keys, entries without because, unknown classes and
// types, and malformed patterns, naming the entry:
//
//	specs/armature.yaml: overrides[3] (Vault properties.vaultUri): because is required
//
// Whether an entry matches anything is known only once the swagger is read:
// the generator reports an entry that selects no kind, matches no property
// or changes nothing as a *Error of the same shape.
//
// # Patterns
//
// ARM types, kinds, groups and versions are matched case-insensitively with
// path.Match per segment (`/` for ARM types); a `**` segment matches any
// number of segments. Property paths are split at `.` and before `[*]`:
// `*` matches one property name or map key, `[*]` only array items, `**`
// any number of segments (`**.provisioningState`).
//
// # Spec root
//
// Swagger files are named relative to the spec root. It is, in order: the
// --spec-root flag, the ARMATURE_SPECS environment variable, specRoot in the
// file (relative to the file's folder's parent, i.e. the repository), and
// specs/azure-rest-api-specs.
package config
