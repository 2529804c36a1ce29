// Package arm is the reconciler's ARM client: a small interface over
// azcore's ARM pipeline (bearer token, retries with Retry-After, the
// resource-provider registration policy) and its LRO pollers.
//
// # Contract
//
// Client never blocks on a long-running operation: a call that starts one
// returns at once with a resume token, and Poll advances it by one poll.
// Resume tokens are plain strings, so the reconciler keeps them on the
// custom resource and a restarted operator resumes polling where it left
// off, without sending the request again. Every method is safe to repeat.
//
// # Errors
//
// An ARM error answer is an *Error with the HTTP status and ARM's error code,
// message, target and Retry-After; a credential that cannot get a token
// fails with *TokenError. Classify looks an error up in one table, Rules
// (classify.go; docs/errors.md is generated from it), and gives its class:
// retry with backoff, wait for a change of the object (IsTerminal), wait
// for a change of the world, or name taken. 429 and 5xx are first retried
// by the azcore pipeline, with Retry-After.
//
// # Credentials and registration
//
// ServicePrincipal builds azidentity's credential for a credential Secret
// (client secret or federated token file); HTTPClient gives the clients of
// several credentials one transport. azcore's resource-provider
// registration policy, which blocks a request while a provider registers,
// is turned off: RegisterProvider sends the registration request and
// returns.
package arm
