// Package action runs Actions (api/actions/v1alpha1): one ARM POST action
// (regenerateKey, restart, failover, listKeys…) on one resource, once,
// with its state in status and its secret results in a Secret.
//
// # A reconcile
//
//  1. Succeeded or Failed: nothing more to do, ever (the spec is immutable).
//  2. An operation in flight (status.operation.resumeToken): poll it once
//     and requeue after Retry-After; the worker never blocks on it.
//  3. Sent but neither finished nor an operation recorded: the outcome is
//     unknown (see Crash semantics).
//  4. Otherwise (Pending): validate the spec against the target's
//     Descriptor (the webhook does the same at admission); resolve the
//     target — a generated kind's custom resource in the namespace, which
//     must be Ready with a status.id (else Pending/WaitingForTarget; the
//     target's change requeues the Action through a watch and an index),
//     or spec.target.armId; read the secretParameters; check that the
//     result Secret and ConfigMap are free; record the intent; POST.
//  5. A synchronous answer, or the end of the operation: the secret fields
//     of the response go to spec.resultSecret (a Secret owned by the
//     Action), the others to status.response and spec.resultConfigMap;
//     phase Succeeded.
//
// # Crash semantics: at most once
//
// An action may not be idempotent (regenerateKey changes a key every time
// it runs), so an Action is sent at most once. Before the POST, the status
// is patched to phase Running with sentAt, under an optimistic lock on the
// object's resourceVersion: a stale cached copy, a second worker or a
// second operator replica cannot also claim it, because its patch
// conflicts. Status writes after that (the resume token, the result)
// are retried on a fresh read while it still shows this claim, so someone
// labelling the Action meanwhile does not lose an answer. Then:
//
//   - crash before the intent is stored: nothing was sent; the next
//     reconcile starts over.
//   - crash after the intent is stored but before the answer (or the
//     resume token) is: the request may or may not have reached ARM. The
//     Action ends Failed with reason OutcomeUnknown and ActionRequired;
//     it is not sent again. Check the resource and create a new Action.
//   - crash during a long-running operation: its resume token is in
//     status; polling resumes where it was, without a second POST.
//   - crash after the results are written but before status says
//     Succeeded: as the second case; the Secret holds the results.
//
// Actions whose name starts with list, get or retrieve (listKeys,
// ListAccountSas, retrieveBootDiagnosticsData) only read, by ARM's naming
// convention: their unknown outcomes are resolved by sending them again.
//
// ARM answers that say the action did not run — 404 (the target is
// gone), 408, 409 (another operation runs) and 429 — put the Action back
// to Pending and it is retried later; other 4xx answers end it Failed with
// ARM's error in status.error. A 5xx after azcore's retries, or a
// connection failure, leaves the outcome unknown as above.
//
// # Secrets
//
// Secret response fields (the Descriptor's Response schema marks them:
// x-ms-secret, format password, or key-like names) and any field the
// schema does not declare go only to spec.resultSecret, under their paths
// (keys.0.value), plus the whole response as response.json. Status,
// events, logs and the ConfigMap get the response without them. Request
// values that are secrets come from spec.secretParameters and are read
// only when the request is sent.
package action
