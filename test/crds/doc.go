// Package crds proves, against a real kube-apiserver and etcd, that every
// generated CRD installs, stores the real x-ms-examples PUT bodies of the
// Azure specs without losing a field, and enforces create-only fields with
// its CEL rules. It has only tests.
package crds
