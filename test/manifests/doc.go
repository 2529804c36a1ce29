// Package manifests tests config/, the kustomize deployment of the
// operator, against a real kube-apiserver (envtest): every overlay is built
// with kustomize's Go API (krusty, what kubectl -k runs) and each object is
// applied by server-side apply with dry-run, so the apiserver validates it
// as it would on a cluster. CRDs and Namespaces are really created first,
// since the objects in them cannot be dry-run otherwise. cert-manager is
// not installed: minimal CRDs for its Issuer and Certificate (schema
// unchecked) let those objects dry-run.
//
// The suite also checks that the committed config/ is what hack/manifests
// renders now, that the operator's roles allow what the operator does and
// no more (SubjectAccessReviews, and the operator run under that
// ServiceAccount against the ARM emulator), that the Deployment's
// arguments are flags the operator accepts, and the --kinds and conversion
// variants.
//
// config/default is also installed for real and its operator run (as the
// Deployment's args configure it, as its ServiceAccount): it issues its
// own webhook certificate, injects the CA into the webhook configurations
// and the converting CRDs, and serves admission and conversion through the
// apiserver; two replicas rotate short-lived certificates while requests
// keep succeeding. envtest has no kube-proxy: the webhook Service becomes
// an ExternalName of localhost, the only change made to the build.
package manifests
