// Package sandbox tests the program behind `make sandbox` (hack/sandbox)
// as a user's CI runs it: built, started with SANDBOX_DIR, its two lines
// read from standard output, manifests applied through the kubeconfig it
// writes, then stopped with SIGINT, leaving no kube-apiserver or etcd
// behind (found in /proc: the test runs on Linux). It needs the envtest
// binaries as the other suites do (test/envtestutil: KUBEBUILDER_ASSETS,
// else hack/setup-envtest.sh builds them).
package sandbox
