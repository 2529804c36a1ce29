// Package render writes the generated parts of config/, the kustomize
// deployment of the operator, from the generated CRDs, samples and
// Descriptors. cmd-like wiring lives in hack/manifests; this package holds
// every rule, so that test/manifests renders exactly what `make manifests`
// commits.
//
// # Generated and hand-written files
//
// Render returns the generated files, each starting with the line
// Header; Write puts them under a config folder, removes generated files
// that are no longer rendered (a group that disappeared), and copies the
// hand-written files (every file without Header: the manager Deployment,
// the webhook Service, the overlays) from the committed config/ when it
// writes elsewhere, so an output folder is a complete, buildable config/.
//
// # What is generated
//
//	crd/kustomization.yaml          every API group's folder
//	crd/<group>/                    one kustomization per group, its CRDs copied in
//	rbac/role.yaml                  the operator's ClusterRole (see BaseRules, KindVerbs)
//	webhook/manifests.yaml          the webhook configurations (package webhook; the
//	                                Action kind's entry when its CRD is rendered)
//	manager/operator.env            the operator's environment (ARMATURE_KINDS …)
//	components/conversion/          CRD conversion-webhook patches (CRDs with >1 version,
//	                                labelled ConversionLabel for the CA injection)
//	components/webhook-certs/role.yaml  RBAC of the operator-managed serving certificate
//	                                (see certsRules: the Secret, both webhook
//	                                configurations and the converting CRDs, by name)
//	samples/                        the generated samples of the selected kinds
//
// # Choosing kinds
//
// Options.Kinds takes the operator's --kinds syntax: comma-separated
// path.Match patterns over "<group>/<Kind>" (runtime/operator
// Config.Selected decides). Only the matching CRDs, their RBAC, webhook
// rules and samples are rendered, and ARMATURE_KINDS is set to the
// patterns. Every group folder under crd/ is also a kustomization of its
// own, so one committed config/ already installs chosen groups.
//
// # Least privilege
//
// The ClusterRole grants exactly what runtime/reconciler uses: get, list, watch,
// update and patch on the rendered kinds, get/update/patch on their status,
// update on their finalizers, get/list/watch on Secrets (references to
// secret values), create/patch on Events. Extra CRDs bring their own
// rules (the Action kind writes results to Secrets and ConfigMaps); no
// ConfigMap rule exists without them. Leader election's Lease rules are a
// namespaced Role (config/rbac, hand-written). Managing the webhook's
// serving certificate is a ClusterRole and a Role of their own
// (components/webhook-certs), every rule limited by resourceNames except
// list and watch of CRDs.
package render
