// Package test checks that the generated tier (docs/tiers.md) installs and
// is served: a real kube-apiserver and etcd (envtest) with every CRD of
// config/crd and config/crd/generated installed and Established, the ARM
// emulator (fakearm) and the operator (operator.Run with the tier's kinds)
// in this process, and objects of a few tier kinds of different providers
// brought to Ready. It prints the apiserver's resident memory with every
// CRD and the time to install them.
//
// It needs the generated tier, which is not committed: `make tier-test`
// runs `make crds` first (or skips, saying so, without the wide corpus).
// It lives in the tier's module so that the core's `go test ./...` does
// not need the tier.
package test
