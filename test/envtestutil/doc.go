// Package envtestutil starts a real kube-apiserver and etcd for tests through
// controller-runtime envtest, with the binaries hack/setup-envtest.sh builds.
package envtestutil
