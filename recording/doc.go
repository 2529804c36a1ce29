// Package cassette reads go-vcr cassettes: YAML recordings of real HTTP
// conversations between a client and Azure Resource Manager, such as the
// ones in test/recordings (copied unchanged from Azure Service Operator).
//
// # Formats
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
// # Design
//
// The package only reads: it does not match, replay or record. A replayer
// (for example fakearm's tests) gets each interaction's method, URL,
// headers (as net/http.Header, names canonicalised) and bodies as strings,
// exactly as recorded, and uses the helpers APIVersion and Path to key
// interactions the way ARM routes them. YAML is parsed with
// sigs.k8s.io/yaml, which converts it to JSON first, so the cassette types
// carry json tags.
//
// Cassette bodies are stored after Azure Service Operator's redaction
// (subscription and tenant ids zeroed, timestamps rewritten); see
// test/recordings/SOURCES.md before treating a value as ARM behaviour.
package cassette
