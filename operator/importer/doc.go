// Package importer brings an Azure resource group under the operator: it
// reads the group's resources from ARM and writes one custom resource per
// resource that adopts it (spec.resourceID), so that applying the files
// makes the operator manage what exists without creating or changing
// anything. `operator import` is its command; asoctl's `import
// azure-resource` and aztfexport are its peers.
//
// It lives in the composition layer (operator/) because it needs the
// generated kinds' Descriptors; it takes them as Options, so it builds and
// is tested with any set.
//
// # What is read
//
// The group (GET), the group's inventory (…/resources: only to report the
// types the operator does not serve), the LIST of every top-level type the
// operator serves in the group, and below every resource found the LIST of
// each child type (a singleton child, such as blobServices/default, by its
// GET: not every singleton has a LIST), recursively. Every resource a LIST
// names is read again by GET: the spec is built from what the reconciler
// will compare it with, and some LISTs leave properties out. LISTs are
// followed page by page (nextLink). Nothing is written to ARM. Requests
// run concurrently (Options.Concurrency).
//
// # What is written
//
// For a resource of a selected kind (Options.Kinds; by default all but
// DefaultSkipped), in the version Options.PreferredVersions names, else the
// storage version:
//
//   - spec: the GET body without readOnly values (status has them), without
//     what the CRD has no field for (unknown to the property table, hidden
//     by an override), objects emptied by those removals pruned; writable
//     and createOnly values as Azure has them — so the reconciler's first
//     decision (adoption: compare what the spec sets with the GET) finds
//     nothing to write.
//   - secret properties: ARM never returns them. Each secret path whose
//     holder the GET has references a key of a Secret stub written beside
//     the resource, with empty values for the user to fill in. An empty
//     value is never compared or sent; no value is ever read or written by
//     the import.
//   - spec.resourceID (adopt, never create), spec.owner (the parent's custom
//     resource by name when it is imported too, else its ARM id),
//     spec.azureName when the Kubernetes name is not the Azure name, and
//     the armature.dev/reconcile-policy annotation (Options.Policy).
//
// # Names
//
// A resource group or top-level resource is named after its Azure name,
// sanitised to DNS-1123 (lower case, other characters → '-'); a child
// after its parent's object and its own name (media01-blobservices-images), a
// singleton child after its parent and its type (media01-blobservices).
// Names that collide within a kind keep the name only for the one
// resource whose Azure name it is exactly; the others get 6 hex digits of
// their ARM id's hash, so names do not depend on the order ARM lists in.
//
// # Files
//
// Result.Write: <group>_<kind>_<name>.yaml per resource, headed by
// comments (the ARM id, what was left out and why),
// secret_<name>.yaml per Secret stub and a kustomization.yaml listing them.
package importer
