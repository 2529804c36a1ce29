// Package webhook is the one validating and the one defaulting admission
// handler for every generated kind, driven by the kinds' Descriptors: no
// per-kind webhook code is generated.
//
// # Handlers
//
// A Registry is built from Descriptors (New, or Register on the default
// registry). Its ValidatingHandler and DefaultingHandler implement
// controller-runtime's admission.Handler on the request's raw JSON, decoded
// to map[string]any, so one handler serves every kind; controller-runtime's
// typed CustomValidator and CustomDefaulter would need one registration per
// Go type. Setup serves both on a manager's webhook server at ValidatePath
// and DefaultPath.
//
// # Property tree
//
// Each Descriptor's property-class table (dotted paths from spec, `[*]` for
// array items, `.*` for map values) becomes a tree whose nodes know whether
// a create-only, read-only or secret path lies below them, so a check walks
// only the part of the object that can fail it.
//
// # Validation
//
// On update, every create-only path is compared old against new at any
// depth: array items are paired by their `name` where every item has one,
// else by index; presence changes count. The error names the path, the old
// and new values (secret and write-only values are never shown) and what to
// do:
//
//	spec.location: Forbidden: field is create-only (was "westeurope", now "northeurope"); delete and recreate the resource to change it
//
// azureName, owner and resourceID cannot change once status.id is set. On
// create and update: no value at a read-only path; a Secret key reference
// {name, key} at every secret path; an owner ARM id of the owner's ARM type;
// an owner group and kind that are empty or the owner's kind, and for an
// extension kind (its owner can be any resource) an owner given by group,
// kind and name, or by armId; a resourceID of the kind's ARM type; a
// singleton's fixed name. Custom rules come last (RegisterValidator). An
// update that leaves spec unchanged is not checked, so finalizer and
// metadata updates of objects stored before the webhook existed still go
// through.
//
// The CRDs' CEL transition rules block create-only edits of paths outside
// arrays and maps without the webhook; the webhook blocks them without the
// CEL rules, and also inside arrays and maps. With both installed the
// apiserver runs the CEL rules first, so for a top-level create-only path a
// user sees the CEL message.
//
// # Names and ids
//
// The reconciler writes the name into the resource's ARM id, so a name
// that is no single id segment would address another resource: azureName
// "../x" of a StorageAccount owned by group a made the operator PUT and
// DELETE a storage account in group b. The name (spec.azureName, else
// metadata.name, which the error then names) is refused when it is empty,
// "." or "..", or holds '/', '\', '?', '#', '%' or a control character
// (descriptor.CheckSegment), and when it breaks the swagger's pattern,
// minLength or maxLength for the name parameter, which the Descriptor
// carries (Descriptor.CheckName; a pattern Go's RE2 cannot run, one with a
// lookahead, is not checked):
//
//	spec.azureName: Invalid value: "../x": must not contain '/': it is no part of one segment of an ARM resource id
//
// On update the name is checked only when it changes: a name the object
// already has stands (once status.id is set it cannot change at all).
// spec.owner.armId and spec.resourceID must start with /subscriptions/ or
// /providers/ and have no empty segment and no segment CheckSegment refuses
// (descriptor.CheckID), before their type is compared.
//
// # Defaulting
//
// spec.azureName ← the singleton name, else (on update) the stored
// azureName, else metadata.name; then configured defaults (WithDefaults);
// then custom hooks (RegisterDefaulter). The answer is a JSON patch.
//
// # Configuration and certificates
//
// ValidatingWebhookConfiguration and MutatingWebhookConfiguration build the
// configurations for exactly the served kinds (sideEffects None,
// failurePolicy Fail, a 10 s timeout, CREATE and UPDATE). SelfSigned,
// WriteCertDir and PatchCABundle give a local or development server its own
// CA; in a cluster, mount cert-manager's certificate as the server's
// CertDir and let its CA injector fill caBundle.
package webhook
