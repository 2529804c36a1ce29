// Package override matches the overrides of specs/armature.yaml to the
// generated kinds and their property paths, merges what they say about each
// path into a Fix, and reports every override that matched or changed
// nothing — so that overrides cannot rot silently when the specs change.
//
// # Matching
//
// A Set holds the overrides of one config. For each resource the generator
// asks For(Target): the overrides whose group, version, kind and ARM type
// selectors choose it. The classify stage then asks At(path) for every
// property path of the resource; all overrides whose path pattern matches
// are merged into one Fix. Two overrides that set the same action to
// different values at one path are an error naming both.
//
// # Effects
//
// The stages that apply an action tell the Kind: classify applies class,
// type, hide and default, the model applies enum and rename. An action is
// applied when it changes the generated output: a class override whose
// class the swagger already gives, or `enum: open` on an enum that is
// already open, applies nowhere. Errors then lists, in file order, every
// override that selects no kind, matches no property, or whose actions
// applied nowhere, plus every problem a stage found (a default of the wrong
// JSON type, a rename that collides, a conflict).
package override
