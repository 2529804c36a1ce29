// Package conformance measures the emulator against real ARM: it replays
// recorded ARM traffic (go-vcr cassettes, read by package recording) against
// a fresh emulator per recording and compares the answers. `fakearm
// conformance` and `make conformance` print its report; docs/conformance.md
// explains the figures.
//
// # Semantic replay
//
// A recording is not replayed byte for byte: the emulator's operations,
// timings and api-versions differ from the recorded ones, and that is not
// what is measured. Steps groups the interactions into what is compared:
//
//   - every PUT, PATCH, DELETE and POST is sent as recorded, in order, with
//     the api-version mapped to the newest one the emulator serves for the
//     type; when the emulator answers with an operation, the replay polls
//     that operation to its end at once;
//   - the polls of a recorded operation (GETs of a URL an answer named in
//     Azure-AsyncOperation or Location) are one step, compared on their
//     last answer with the end of the emulator's own operation;
//   - a run of consecutive GETs of the same URL is one step, compared on its
//     last answer (the client was waiting for a state).
//
// A recording that starts mid-life gets that life set up first, without
// comparing: a resource whose first PUT is answered 200 in a recording that
// did not create its resource group existed; a resource group whose first
// PUT is answered 409 ResourceGroupBeingDeleted was being deleted.
//
// # Comparison
//
// Per step: the status code; for mutations the LRO header style (which of
// Azure-AsyncOperation and Location are present); the error code of a 4xx
// or 5xx; and for a 200 with a JSON object body, the top-level and
// properties.* keys whose recorded value is not null must all be in the
// emulator's answer (a served api-version may add keys). Steps of types the
// emulator does not serve count as not matching and are reported as "type
// not served", so the overall figure stays honest.
package conformance
