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
// message and target. IsNotFound, IsTerminal and IsRetryable classify it:
// terminal errors are the user's to fix (400 InvalidParameter,
// PropertyChangeNotAllowed, …); 429 and 5xx are retried by the pipeline and,
// when they persist, by the reconciler's backoff.
package arm
