// Package classify gives every property of a resource, at every depth, one
// class and the rule that decided it.
//
// # Inputs
//
// Three schemas of a resource are walked into sets of property paths: the
// PUT request body, the PATCH request body (when the resource has PATCH) and
// the GET response. Paths are dotted JSON paths from the body root;
// `[*]` stands for the items of an array and `.*` for the values of a map:
// `properties.networkAcls.ipRules[*].value`,
// `identity.userAssignedIdentities.*.principalId`.
//
// # Rules, in the order they are tried
//
//  1. Inside a readOnly parent → readOnly.
//  2. `x-ms-secret: true` (rule "x-ms-secret: true") or `format: password`
//     (rule "format: password") → secret: the spec holds a reference to a
//     Kubernetes Secret key, never the value, so neither the object nor its
//     last-applied annotation holds it, and status drops it. Credentials
//     the swagger marks neither way are `class: secret` overrides in
//     specs/armature.yaml (docs/overrides.md, "Secrets only in Secrets").
//  3. `x-ms-mutability` without create and update → readOnly.
//  4. `readOnly: true` declared in the PUT body schema → readOnly. A GET
//     schema's readOnly does not count: Storage marks `sku` readOnly in the
//     GET type although the PUT and PATCH bodies accept it.
//  5. Inside a createOnly parent → createOnly.
//  6. `x-ms-mutability` with create but not update → createOnly; without
//     read → writeOnly; otherwise → writable.
//  7. In the PUT body but not the PATCH body (when there is a PATCH) →
//     createOnly.
//  8. In the PUT body but never in the GET response → writeOnly.
//  9. Otherwise, in the PUT body → writable.
//  10. Only in the GET response → readOnly.
//
// A free-form object (no declared properties) in the PATCH or GET schema
// counts as containing every path below it.
//
// # Overrides
//
// ClassifyWith applies the overrides of specs/armature.yaml that select the
// resource (generator/override), path by path, parents first:
//
//   - class replaces the class the rules gave; the rule becomes
//     `override: <because>` and Entry.Was keeps the swagger's class.
//     Properties below inherit a readOnly or createOnly class as usual. Only
//     readOnly may apply to a path the PUT body lacks, and secret only to a
//     string.
//   - type sets Entry.Type and drops the paths below: the new schema
//     declares none.
//   - hide sets Entry.Hidden on the path and every path below, and adds
//     `; hidden by override: <because>` to the rule. The class stays: ARM
//     still has the property, the CRD does not.
//   - default sets Entry.Default when the property is in the PUT body, not
//     readOnly, secret or hidden, and the value has its JSON type.
//
// Enum and rename are the model's. Entry.Override keeps every fix of the
// path for the later stages.
package classify
