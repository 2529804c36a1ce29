// Package actions is the envtest suite of Actions (api/actions): a real
// kube-apiserver and etcd with the generated CRDs, the Action CRD and the
// Action webhook, the operator (runtime/operator.Run) and the fakearm
// emulator over loopback. Tests assert on the emulator's journal: what was
// POSTed, how often, also across operator restarts.
package actions
