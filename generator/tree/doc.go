// Package tree builds the ARM resource tree from the paths of loaded swagger
// documents.
//
// # Paths
//
// An ARM path is a scope prefix, `/providers/<Namespace>`, then pairs of
// type and name:
//
//	/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}
//	  /providers/Microsoft.Storage
//	  /storageAccounts/{accountName}/blobServices/default/containers/{containerName}
//
// The pairs give the ARM type (`Microsoft.Storage/storageAccounts/blobServices/containers`)
// and the owner: the type with the last pair removed. Top-level types are
// owned by `Microsoft.Resources/resourceGroups` (resource-group scope) or the
// subscription. A pair whose name is a literal (`blobServices/default`), or a
// path parameter whose enum has exactly one value, is a singleton.
//
// # Resources, actions, status reads
//
// A path with PUT and GET is a resource. Any other path below a resource's
// path is attached to it: POST → an action (`regenerateKey`), GET returning an
// object → an extra status read (`instanceView`), GET returning a page → a
// list. Paths that are not typed resources — a generic `/{resourceId}`, a
// resource type given as a parameter, tags at any scope, operations lists,
// location-scoped reads — are reported as Skipped with a reason, never a
// crash.
//
// # Scope
//
// The prefix before the last `/providers/` gives the scope: none (tenant),
// `/subscriptions/{}` (subscription), `…/resourceGroups/{}` (resource group),
// `/providers/Microsoft.Management/managementGroups/{}` (management group) or
// a single parameter such as `/{scope}` (extension). When one ARM type is
// served at several scopes, the resource-group one is kept and the others are
// reported.
package tree
