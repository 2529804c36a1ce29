// Package webhook proves the armature admission webhook against a real
// kube-apiserver and etcd (envtest): the apiserver calls the validating and
// defaulting handlers over TLS through the generated webhook
// configurations, dry-run requests get the same verdict, and the CRDs' CEL
// rules and the webhook each block create-only edits alone. It has only
// tests.
package webhook
