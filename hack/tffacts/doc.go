// Command tffacts reads a checkout of hashicorp/terraform-provider-azurerm and
// writes a table of facts about which ARM properties Azure updates in place
// and which force a new resource: specs/terraform/azurerm.json.
//
// Usage:
//
//	go run ./hack/tffacts --azurerm DIR [--out FILE] [--commit SHA]
//
// # Why
//
// Swagger alone often misclassifies a property (generator/classify). The
// azurerm provider is an independent, human-curated source: an attribute with
// an unconditional `ForceNew: true` is one Azure cannot update in place, and a
// settable attribute without it is one Terraform updates in place. Only these
// facts carry over; the provider's code (MPL-2.0) is read, never copied.
//
// # Resources
//
// Each internal/services/<service> package is parsed with go/parser (no type
// checking). Untyped resources are the `"azurerm_…": resourceX()` entries of
// a `SupportedResources` map; typed resources are the elements of a
// `Resources() []sdk.Resource` list, whose `ResourceType()`, `Arguments()`,
// `ModelObject()`, `Create()`, `Update()` and `CustomizeDiff()` methods are
// read. The ARM type comes from the resource ID the resource parses
// (`ParseXID` in its Delete, Read or Update function): the `Segments()` of
// that ID type, in go-azure-sdk or go-azure-helpers/commonids.
//
// # Attributes
//
// A schema map is a map literal, a function returning one (plus
// `m["k"] = …` lines), or a helper such as `commonschema.Location()` followed
// into its package. ForceNew, Optional, Required and Computed are read from
// the schema literal; a helper's parameters are substituted when the call
// passes literals. Nested blocks (`Elem: &pluginsdk.Resource{Schema: …}`)
// are walked. A block's own ForceNew is not inherited (the plugin SDK gives it
// to the count of the block only): the block is conditionalForceNew and
// each nested attribute has its own ForceNew. A
// `ForceNewIfChange`, `ForceNewIf` or `ForceNew("…")` call in CustomizeDiff
// makes an otherwise updatable attribute conditionalForceNew.
//
// # Mapping attributes to paths
//
// The Create and Update functions, and every package-local function they
// call, are walked. A value that derives from `d.Get("a")`, `d.GetOk("a")`,
// `model.Field` (a `tfschema:"a"` tag), or `raw["a"]` below a block, and is
// stored in a field of a go-azure-sdk model (a composite-literal field or an
// assignment `x.F.G = …`), maps the attribute to that field's JSON path. The
// position of a model literal comes from where it is put: a parent literal's
// field, a variable that is put somewhere, a return value whose call result
// is put somewhere, `append`. Failing that, from the SDK's types alone: the
// one path from the PUT or PATCH body types (the `input` of the client's
// PUT/PATCH methods taking the resource's ID) to the literal's type. Two or
// more such paths, or none, leave the attribute unmapped with a reason; the
// tool never guesses.
//
// # Output
//
// Resources, facts and unmapped entries are sorted, so the same checkout
// gives a byte-identical file.
package main
