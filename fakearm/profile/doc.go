// Package profile is the behaviour profile of ARM resource types: how Azure
// Resource Manager answers, per type and api-version, where the swagger
// says nothing or says it wrong. The generator learns it (generator/profile)
// from recorded real ARM traffic (test/recordings), the x-ms-examples
// responses and the swagger, in that order, with hand-written rules only
// where none of them says; it writes one YAML file per provider to
// generated/profiles. The emulator (fakearm) applies it.
//
// # What a profile says
//
//   - Create, Update, Patch, Delete, DeleteMissing: the answer to a verb —
//     status code, whether it is long-running and with which header
//     (Azure-AsyncOperation, a Location naming an operation), a Location
//     naming the resource itself (a synchronous create), an empty body.
//   - NotFound: the error of a GET of a resource that does not exist
//     (ResourceNotFound from the gateway, or the provider's own code such as
//     QueueNotFound).
//   - BeingDeleted: the error of a PUT while the resource is being deleted.
//   - Name: the name rule of the swagger's name parameter and, when a
//     recording shows ARM refusing a name, its error (only then enforced).
//   - Locations: the regions a type may be created in, and the error
//     otherwise (ARM lists them when it refuses one).
//   - Defaults: values real ARM's GET answers carry that the request left
//     out (the x-ms-examples ones are Descriptor.ServerDefaults).
//
// Every value carries its Source: which recordings, examples, swagger or
// rule said so.
package profile
