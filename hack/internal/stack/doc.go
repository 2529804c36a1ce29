// Package stack starts the pieces of a local armature installation, for
// the programs under hack/ that run one (hack/demo, hack/sandbox):
//
//   - StartControlPlane: kube-apiserver and etcd (envtest, with the
//     binaries hack/setup-envtest.sh builds), every CRD of CRDFiles with
//     multi-version kinds converting through the operator's /convert, and
//     the admission webhook configurations, all pointing at the port the
//     operator will serve its webhook on;
//   - StartARM: the ARM emulator (package fakearm) on a loopback port, its
//     CA written to a file for the operator to trust;
//   - StartOperator: the operator (operator.Run, with the example
//     composition) in this process, against the emulator, serving its
//     admission and conversion webhooks; it returns once they answer.
//
// Each returns a stop function or method that undoes it; callers stop in
// the reverse order (operator, emulator, control plane). The operator
// runs in the caller's process; kube-apiserver and etcd are its child
// processes, stopped by ControlPlane.Stop.
package stack
