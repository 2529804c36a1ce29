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
// # Skipped paths
//
// Every skip has a reason (free text naming what was found) and a category
// from a closed list (SkipCategory; docs/sweep.md has the same table):
//
//	not-a-resource           not below /providers/, or tags (a facet of every resource)
//	generic-path             /{resourceId}, or a namespace or type segment that is a parameter
//	duplicate-of             a type also served at a preferred scope, and the paths below it
//	list-only                a GET listing a type that has no PUT
//	no-PUT                   an operation on a typed instance path without PUT (read-only type)
//	no-GET                   a PUT of a typed instance without GET
//	action-only              a POST outside any resource type (checkNameAvailability)
//	provider-level           another operation outside any resource type
//	unsupported:scope-prefix a scope other than the five below (a provider nested in a typed resource)
//	unsupported:sub-path     an operation below a resource that is no action, status read, list or instance
//	unsupported:body         a resource whose PUT body is not a JSON object (a runbook draft's script text)
//	secret-read              a status read whose answer holds credentials (readonlykeys, connection strings)
//
// Paths that are attached after all resources are known are skipped per
// operation, so one path can be skipped once per method. A path that fits
// no category is a gap of the tree to fix, not a new category; the
// `unsupported:` ones are constructs the generator could support one day.
//
// # Embedded children
//
// A resource's PUT body may hold a collection of its own child resources
// (a virtual network's properties.subnets, a security group's
// properties.securityRules): ARM serves each item at the child's path too,
// and a PUT of the parent replaces the children. Resource.Embedded marks
// them: an array property at the body root or one object below it whose
// items are the child type's PUT body (the same definition once `$ref`s
// are followed), or that is named as the child's type segment and holds
// objects. The Descriptor carries them as EmbeddedChildren.
//
// # Scope
//
// The prefix before the last `/providers/` gives the scope: none (tenant),
// `/subscriptions/{}` (subscription), `…/resourceGroups/{}` (resource group),
// `/providers/Microsoft.Management/managementGroups/{}` (management group) or
// a single parameter such as `/{scope}` (extension). When one ARM type is
// served at several scopes, the resource-group one is kept and the others are
// reported.
//
// # Type segments typed by an enum
//
// A resource type segment that is a path parameter is a generic path
// (skipped), unless the parameter has an enum: DNS and Private DNS record
// sets (`…/privateDnsZones/{zone}/{recordType}/{name}`, recordType one of A,
// AAAA, CNAME, MX, PTR, SOA, SRV, TXT). Such a path stands for one ARM type
// per value — ARM's own types are Microsoft.Network/privateDnsZones/A and so
// on, each with its own record shape in practice —, so the tree writes the
// value into the path and builds one resource per value
// (Resource.PathValues keeps recordType → A). The kind is named from the
// segments (PrivateDnsZonesA); its examples are those whose recordType is
// its value. One kind per value was chosen over one kind with the type as a
// create-only field because the path, the ARM type and the list path differ
// per value: the descriptor stays a plain path template.
package tree
