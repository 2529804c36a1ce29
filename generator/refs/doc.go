// Package refs finds the fields of a kind's spec that hold an ARM resource
// id: the references between resources that the swagger leaves as plain
// strings (`properties.subnet.id`, `properties.serverFarmId`). This slice
// detects them and says why; nothing is emitted from them yet
// (docs/references.md).
//
// # What is judged
//
// The walk follows the PUT body schema, like classify's, over the paths the
// kind's table puts in the spec: not readOnly, not hidden, not retyped by an
// override. Secrets are never references. A slot is a property, or the
// items of an array property (`subnetIds[*]`). The walk does not go below a
// reference: the rest of a Subnet embedded in a network interface is ARM's
// echo, not something the interface sets.
//
// # Rules, in the order they are tried
//
// For a string (format uuid is never an id):
//
//  1. arm-id-details: `x-ms-arm-id-details`; its allowedResources[].type
//     are the targets.
//  2. format: `format: arm-id`.
//  3. name+description: the name is `id`, or ends in Id or ID after a
//     lower-case letter or digit (subnetId, vnetSubnetID; subnetIds for the
//     items of a list), and the description says "resource id", "ARM id",
//     "resource identifier" or writes an id out (`/subscriptions/…`). For a
//     GUID's name (tenantId, principalId, clientId, objectId,
//     subscriptionId, applicationId…) only the words count. An `id` names
//     its own object, not another, at the body root and beside a `name`
//     (an application gateway's backendAddressPools[*].id).
//
// For an object, the reference is its `id` (rule subresource) when id is a
// string of the spec and
//
//   - id is its only spec property (Network's and Compute's SubResource,
//     CDN's ResourceReference); or
//   - it is the PUT body of another resource type, found in every document
//     the loader read (Network embeds whole Subnet, NetworkSecurityGroup,
//     PublicIPAddress and RouteTable definitions where ARM reads the id
//     alone); the kind's own embedded children (tree.Embedded) and types
//     below the kind are not references; or
//   - it is a named part (an item with id and name, declared in the
//     owner's file) of another type's body: a network interface's
//     applicationGatewayBackendAddressPools[*] are an application gateway's
//     backendAddressPools.
//
// For a map (rule id-keyed-map), the keys are ids when the description says
// so ("dictionary keys will be ARM resource ids"), when the map is the
// body's identity.userAssignedIdentities (ARM's managed identity contract;
// SignalR's and SQL's own copies of the type say only "Get or set the user
// assigned identities"), or when the schema is common-types'
// UserAssignedIdentities.
//
// # Targets
//
// The ARM types an id may name come from x-ms-arm-id-details, from the
// schema (the body or part the object is), from an id written out in the
// description (`…/providers/Microsoft.Web/serverfarms/{name}` →
// Microsoft.Web/serverfarms), or from the name (userAssignedIdentities; a
// SubResource named after one of the kind's own collections, such as an
// application gateway rule's `probe`, which is then Self: it names a part
// of the resource itself). Without any, Targets is empty.
//
// # Overrides
//
// The `references:` entries of specs/armature.yaml (config.Reference,
// matched by override.Refs) add a reference the rules miss (rule override,
// targets as the entry says) or remove one they find (Kind.Removed keeps it
// with the entry's because). An add at a detected path only sets its
// targets. An entry that selects no kind, matches no path or changes
// nothing is an error of the config, as for overrides.
package refs
