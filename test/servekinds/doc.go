// Package servekinds tests that the operator serves a kind whose CRD is
// installed after its start, stops serving it when the CRD is deleted and
// serves it again when the CRD comes back, all without a restart: a real
// kube-apiserver and etcd (envtest) with no CRD installed at the start,
// the ARM emulator over loopback HTTPS, and operator.Run.
package servekinds
