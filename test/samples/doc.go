// Package samples tests the samples of config/samples (docs/samples.md):
// statically, that each file is a set that applies as it is (every owner
// and every reference names an object of the same file, written before
// it; no subscription or resource id of the examples is left), and, with
// the envtest binaries (test/envtestutil), that `make samples`
// (hack/samples, built and run as the Makefile runs it) brings them to
// Ready in a sandbox: it exits 0 and prints a count that covers every
// sample.
package samples
