// Command demo is what `make demo` runs after generating: a real
// kube-apiserver and etcd (envtest, built by hack/setup-envtest.sh), the
// local ARM emulator and the operator, all in this process tree; it applies
// resources, shows them converge, edits a writable field, attempts a
// create-only edit, reads an object in its other served version, runs an
// Action, applies a stack whose objects reference each other and hand
// values to a Deployment (then deletes it at once, in dependency order),
// deletes, runs a composition, prints a summary, and stops
// everything (also on Ctrl-C).
package main
