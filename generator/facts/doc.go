// Package facts reads tables of facts about ARM properties that come from
// outside the swagger, and answers what they say about one property of one
// ARM type.
//
// The first source is Terraform's azurerm provider (specs/terraform,
// written by hack/tffacts): for an attribute mapped to an ARM type and a
// property path, an unconditional `ForceNew` says Azure cannot update the
// property in place (Terraform deletes and recreates the resource), a
// settable attribute without ForceNew says Azure updates it in place
// (Terraform sends it in an update), and a conditional ForceNew
// (CustomizeDiff) is recorded and shown but decides nothing.
//
// Several Terraform resources may map to one ARM type (Linux and Windows
// web apps are both Microsoft.Web/sites). Lookup merges their evidence: a
// property is create-only only when every fact about it is an
// unconditional ForceNew; one that some facts update in place and others
// force new is a Conflict, which decides nothing either. Paths compare
// case-insensitively (the SDK's JSON names and the swagger's agree but for
// case now and then).
package facts
