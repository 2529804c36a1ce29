// Package reconciler holds the envtest suites of the generic reconciler:
// the operator's reconcilers run against a real kube-apiserver and etcd
// (envtest, hack/setup-envtest.sh) and the ARM emulator (fakearm) over
// loopback, or a Playback of recorded real ARM traffic (test/recordings).
//
// The suites cover converge, edit and delete; owners that arrive later;
// restarts during an operation; the reconcile policies; the error table's
// classes; credentials per namespace and the operator's own identity only
// where opted in; shards; the drift observer; the trust rules of issue 25
// (claims before a create, Secrets watched and rotated, writes per
// generation under faults); and recorded real answers (a synchronous PUT,
// ARM's normalisation that is not drift, a 204 DELETE, a 409 retried).
//
// The benchmarks print figures (make bench-reconcile, bench-scale,
// bench-secrets; docs/scale.md): time to Ready against the apiserver's
// same-data floor, writes and ARM calls per create, a no-op resync's ARM
// reads, the operator's memory.
package reconciler
