// Package examples turns the x-ms-examples of a resource's PUT operation —
// real request bodies — into custom resources of the generated kind, and
// checks them against a CRD schema offline with the apiserver's own
// libraries.
//
// # From an example to a custom resource
//
// The example's body parameter becomes spec, with three changes a user would
// make too: readOnly values, and values an override hides, are dropped (ARM
// ignores the former, the CRD has no place for either), secret values
// become Secret key references, and the
// operator fields are added: azureName (the name in the example's path) and
// owner (the custom resource of the owner, named like this one). The custom
// resource is named from the path's names joined with dashes, so a child's
// owner reference names its owner's custom resource.
//
// # Sample sets
//
// Sets makes, per API group, the samples that apply as they are
// (docs/samples.md): a resource group, then each kind's custom resource
// after its owner and the objects it references, all in the set; the
// examples' ARM ids become reference fields (…Ref) naming objects of the
// set, or are dropped; Secrets hold the examples' secret values.
//
// # Checking
//
// Validator prunes unknown fields exactly as the apiserver does (reporting
// every pruned path: a field of a real payload that the CRD would silently
// drop) and validates the rest against the CRD's structural schema.
package examples
