// Package recording holds what the generator and the emulator share about
// real ARM traffic: the reader of go-vcr recordings (Cassette) and the
// behaviour-profile format (Profile, ProfileFile, ProfileSet) with its
// encode and decode. It is a leaf: it imports neither generator/… nor
// fakearm, so that generator/profile, which learns profiles from
// recordings, does not stand on the emulator that applies them.
//
// # Recordings
//
// LoadCassette and ParseCassette read go-vcr cassettes: YAML recordings of
// real HTTP conversations between a client and Azure Resource Manager,
// such as the ones in test/recordings (copied unchanged from Azure Service
// Operator).
//
// # Cassette formats
//
// Two cassette formats occur in those files and both are read:
//
//   - version 1 (go-vcr v1): each interaction has request.{body, form,
//     headers, url, method} and response.{body, headers, status, code,
//     duration}; headers are maps of name to list of values.
//   - version 2 (go-vcr v2/v3): the same keys, plus per-interaction id and
//     per-message proto, content_length, host, trailer and a duration such
//     as "2.39s". The extra keys are accepted and ignored.
//
// Any other version is an error, so a new format is noticed rather than
// half-read.
//
// # Reading, not replaying
//
// The cassette reader only reads: it does not match, replay or record. A
// replayer (for example fakearm's tests) gets each interaction's method,
// URL, headers (as net/http.Header, names canonicalised) and bodies as
// strings, exactly as recorded, and uses Interaction.APIVersion and
// Interaction.Path to key interactions the way ARM routes them. YAML is parsed with
// sigs.k8s.io/yaml, which converts it to JSON first, so the cassette types
// carry json tags.
//
// Cassette bodies are stored after Azure Service Operator's redaction
// (subscription and tenant ids zeroed, timestamps rewritten); see
// test/recordings/SOURCES.md before treating a value as ARM behaviour.
//
// # Behaviour profiles
//
// Profile is the behaviour profile of ARM resource types: how Azure
// Resource Manager answers, per type and api-version, where the swagger
// says nothing or says it wrong. The generator learns it (generator/profile)
// from recorded real ARM traffic (test/recordings), the x-ms-examples
// responses and the swagger, in that order, with hand-written rules only
// where none of them says; it writes one YAML file per provider to
// generated/profiles. The emulator (fakearm) reads them with LoadProfiles
// and applies them.
//
// # What a Profile says
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
package recording
