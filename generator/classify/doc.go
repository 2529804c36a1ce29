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
//  2. `x-ms-secret: true` or `format: password` → secret (the spec holds a
//     reference to a Kubernetes Secret key, never the value).
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
package classify
