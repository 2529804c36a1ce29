// Package importer proves `operator import` end to end on a real
// kube-apiserver and etcd (envtest) with the admission webhook installed:
// resources made directly in the ARM emulator are imported, the files are
// applied, the operator runs, everything becomes Ready, and the emulator's
// journal shows no ARM write after the import. It has only tests.
package importer
