// Package profile is the generator step that learns the behaviour profile
// of every generated resource type: how real ARM answers it, where the
// swagger says nothing or says it wrong (the types are in package
// recording, which fakearm reads too). Generate writes one YAML file per provider to
// generated/profiles, plus profiles.go that embeds them; fakearm applies
// them, `make verify` checks they are current, and `fakearm conformance`
// measures the result against the recordings.
//
// # Sources, in order
//
//  1. Recorded real ARM traffic (the "recordings" folders of
//     specs/armature.yaml: go-vcr cassettes). Each interaction is matched to
//     a generated type by its path (any api-version: the recordings are
//     older than the served versions), and the resource's state is followed
//     through the recording — a successful PUT makes it exist, a successful
//     DELETE makes it (and everything below it) gone — so that an answer is
//     known to be a create, an update, a delete, or a delete of a resource
//     that does not exist. A recording that starts mid-life is read as
//     fakearm/conformance replays it: a first PUT answered 200, in a
//     recording that did not create the resource group, updates a resource
//     that existed. Per case the answer most recordings show wins; Source
//     counts them and names the first two (file #interaction, 0-based).
//     A type with no recording of an error or a verb takes what its
//     provider's recorded types of the same level agree on — at least two,
//     none recorded otherwise — (provider.go: not-found codes;
//     answerrules.go: verb answers and finished operations, keyed also by
//     what the swagger says of the verb), else an ARM-wide answer rule.
//  2. The x-ms-examples of the operation: the response codes they list
//     (201 means a create answers 201; 204 on a DELETE means a missing
//     resource answers 204), and the defaults of every served type
//     (examples.go): members a GET or PUT example response shows that no
//     PUT example request sends, with the examples' own data emptied
//     (arrays, maps, strings other than enum values); a recorded default
//     of the same path wins.
//  3. The swagger: x-ms-long-running-operation, final-state-via, and the
//     name parameter's pattern and lengths.
//  4. The rules of rules.go, only where none of the above says.
//
// # What is learned from recordings only
//
//   - the error of a GET of a missing resource whose parent exists
//     (NotFound: QueueNotFound, ContainerNotFound, the gateway's
//     ResourceNotFound…);
//   - the error of a PUT while the resource is being deleted (a 409 whose
//     code says BeingDeleted);
//   - the error of a PUT whose body names a resource the recording had not
//     made (ReferenceNotFound: a web site before its plan, a virtual
//     machine before its network interface, 404 NotFound); a type recorded
//     accepting such a PUT (a Private DNS link) has none, and a rule for
//     other types needs two providers refusing alike and none accepting;
//   - the error of a refused name: a PUT answered 400 whose name breaks the
//     swagger's rule (AccountNameInvalid). Only then does the emulator
//     enforce the rule;
//   - the regions ARM lists when it refuses a location;
//   - Defaults: values of writable and create-only properties (top level
//     and properties.*) that GET answers carry and the request that made
//     the resource left out; the most frequent value wins.
//
// The output is deterministic: types are sorted by ARM type and
// api-version, recordings by file name, and ties are broken by order.
package profile
