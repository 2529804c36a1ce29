// Package helm tests the Helm chart charts/armature with the helm CLI,
// built from the Go module proxy by hack/setup-helm.sh (called from the
// tests, cached under ~/.cache/armature; the tests skip, saying why, only
// when it cannot be built).
//
// helm lint and helm template run with the default values and with
// choices of groups and kinds: the default render must be config/default's
// kustomize build in every object but the Namespace (Helm's release
// namespace) — Deployment, RBAC, webhook configurations, CRDs, Services,
// the Secret — up to the labels Helm adds and the names kustomize hashes;
// a choice must install exactly the CRDs the operator's own --kinds
// matcher picks for the patterns the chart passes it, with RBAC, webhook
// rules and the certificate's CRD names narrowed to them. Values that
// cannot work must fail the render.
//
// The default render is applied to a real kube-apiserver (envtest) by
// server-side apply, then installed by helm install, whose release Secret
// must fit Helm's 1 MiB with every CRD of the chart selected; its size is
// logged beside an estimate of the release had the CRDs been files of the
// chart itself (docs/helm.md).
package helm
