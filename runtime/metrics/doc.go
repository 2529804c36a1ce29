// Package metrics registers a runtime package's Prometheus collectors with
// the registry of the binary that serves them.
//
// # Who registers
//
// No package registers its metrics in an init(): a binary that imports a
// package, even indirectly, would otherwise serve metrics it never
// produces (the webhook binary imports the reconciler through the webhook
// package). Each runtime package with metrics exports Register(r), built
// on this package's Register, and the composition that serves metrics
// calls it: operator.Run registers the reconciler's, runtime/arm's and the
// configurator's with controller-runtime's metrics.Registry. Tests that
// read a metric register it themselves.
//
// # Registering twice
//
// Register tolerates a collector that is already registered with r: an
// operator restarted in one process (tests that run operator.Run several
// times) registers its metrics each time it starts.
package metrics
