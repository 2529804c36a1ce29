// Package reconciler is the one generic reconciler: instantiated once per
// generated kind from its Descriptor, it makes Azure match the custom
// resource through the arm.Client.
//
// # A reconcile
//
//  1. Read the object. Deleting → finalize: DELETE in ARM (unless the
//     reconcile-policy is detach-on-delete), follow the operation, treat 404
//     as done, drop the finalizer.
//  2. Add the finalizer, persisted before anything is written to ARM.
//  3. Resolve the owner: spec.owner.armId, or the custom resource named by
//     spec.owner.name, which must be Ready with a status.id; else
//     Ready=False/WaitingForOwner (the owner's change requeues its children
//     through a watch and an index, not polling). The owner's kind is the
//     Descriptor's; an extension kind (a role assignment: its owner can be
//     any resource) names it with spec.owner.group and kind, any kind the
//     operator registers (owner.go).
//  4. An operation in flight (its azcore resume token is kept in the
//     armature.dev/operation annotation; a create's, in memory, beside the
//     intent recorded before its PUT) is polled once; the
//     worker never blocks on it. Records read back are sealed to the
//     object (seal.go); a create is preceded by a GET and a claim.
//  5. Build the desired ARM body from spec (Secret references resolved at
//     call time; their values are hashed in the last-applied annotation and
//     never stored; the kind's MutateBody hook). decide — one pure function
//     shared with the plan policy and `operator plan` — compares it with
//     armature.dev/last-applied and, when read, the live resource: not
//     created → PUT; changed → JSON merge patch, sent as PATCH when the API
//     has a full PATCH, else GET + patch + PUT; adopted → only what differs
//     from the live resource; unchanged → no write.
//     A write never removes an embedded child (a virtual network's
//     subnet) the spec does not name (embedded.go, docs/embedded.md).
//  6. GET → status (ARM's shape), conditions, observedGeneration.
//  7. Requeue after the sync period (jittered): that GET is the drift
//     observer. Live writable values that differ from the desired ones are
//     corrected (or only reported under the skip policy).
//
// # Serving kinds (serving.go)
//
// SetupServing builds one reconciler per kind and returns a Serving; a
// kind's controller runs from its first Serve (the operator calls it when
// the kind's CRD is installed; SetupAll serves every kind at the start).
// Everything one kind reads of others — owners, children, extension
// objects, reference targets, valuesFrom sources — is limited to the kinds
// served now. What one kind watches of others goes through one fan-out
// handler per served kind and one on Secrets (fanout.go), not a watch per
// pair of kinds. Unserve removes the kind's informer and with it every
// handler on it. The Serving is itself the manager's runnable that runs
// the controllers and drift observers of served kinds: nothing is added
// to a running manager, whose Add can deadlock a stop in progress.
//
// # Reading one reconcile
//
// The steps above read top to bottom in six files, each function below
// the one that calls it: reconcile.go (Reconcile: steps 1–4, the owner,
// the finalizer), apply.go (step 5: the desired body, decide, the claim
// before a create, the write and its operation), observe.go (steps 6–7:
// the GET, status, drift), finalize.go (deletion), fail.go (every error
// of a step: conditions, events, backoff) and state.go (the state one
// reconcile carries, and the status write that ends it). The state of a
// reconcile (type state) is touched by these six files only.
//
// Beside them are pure parts with their own tests — decide.go (the write
// decision), drift.go, ignore.go, embedded.go, refusal.go (create-only
// refusals), records.go and seal.go (what is kept on the object) — and
// the machinery of the process: setup.go and serving.go (controllers,
// indexes: owner.go, claim.go, secrets.go), fanout.go (watches between
// kinds), memory.go (the one per-object
// memory), observer.go (drift by LIST), versions.go (which served
// version reconciles), and the slim form of objects in the cache
// (cache.go, pack.go, digest.go). Between objects: refs.go (…Ref fields
// resolved to the target's status.id, the referrer index),
// values.go (spec.valuesFrom), outputs.go (spec.operatorSpec configMaps
// and secrets) and finalize.go's dependents (delete order);
// docs/references.md.
//
// # Policies (annotation armature.dev/reconcile-policy)
//
// manage (default); skip (GET only, nothing written); detach-on-delete (no
// DELETE); plan (what would be sent is written to the armature.dev/plan
// annotation; no ARM write). ParsePolicy accepts exactly these; any other
// value is Ready=False with reason UnknownPolicy: nothing is sent to ARM
// and the finalizer stays, also when the object is deleted.
//
// # Errors
//
// Every error a reconcile returns names its step ("PATCH <id>: …"); each
// reconcile runs under Config.ReconcileTimeout.
//
// ARM errors are classified by runtime/arm's error table (docs/errors.md):
// Ready=False with ARM's code as the reason and ARM's message; the class
// decides the rest — a terminal error (no requeue until the object
// changes) for object-change errors, a requeue after Config.RetryBackoff
// for transient ones, after Config.WorldBackoff or Config.NameTakenBackoff
// (and ActionRequired=True) for the rest. A Warning Event is recorded once
// per distinct reason and message, not per retry; a 404 on the GET right
// after an accepted write is retried, not taken for a deletion. Errors
// that are not ARM answers are retried by controller-runtime's backoff.
//
// # Credentials
//
// With WithCredentials, each object is reconciled with the credential
// Secret its armature.dev/credential annotation names (in its own
// namespace only), else its namespace's armature-credential Secret, else
// the default client and Config.SubscriptionID: the subscription of
// resource groups comes from the credential. Credentials keeps one ARM
// client per credential Secret, rebuilt when its resourceVersion changes
// (docs/credentials.md).
package reconciler
