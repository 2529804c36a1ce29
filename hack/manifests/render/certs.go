package render

import (
	"bytes"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/webhook"
)

// CertsRoleName names the ClusterRole and the Role (and their bindings)
// with which the operator manages its webhook serving certificate
// (package webhook/certs, components/webhook-certs).
const CertsRoleName = "armature-webhook-certs"

// CertsVerbs are the verbs on each object whose certificate or CA bundle
// the operator manages: read through a watch restricted to its name, and
// update. RBAC authorises list and watch with resourceNames when they
// select one object by metadata.name, as webhook/certs' cache does.
var CertsVerbs = []string{"get", "list", "update", "watch"}

// certsRules are the rules of the certificate management for the
// rendered CRDs. The ClusterRole: both webhook configurations by name; the
// CRDs with several versions (those components/conversion sends to the
// operator) get and update by name, and list and watch of CRDs, which
// cannot be limited by name (webhook/certs watches the labelled CRDs'
// metadata). The Role, in the operator's namespace: the Secret
// CertificateName by name. No create and no delete: the Secret is part of
// the install.
func certsRules(crds []*crd) (cluster, namespaced []rbacv1.PolicyRule) {
	cluster = []rbacv1.PolicyRule{
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"}, ResourceNames: []string{webhook.MutatingConfigurationName}, Verbs: CertsVerbs},
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"}, ResourceNames: []string{webhook.ValidatingConfigurationName}, Verbs: CertsVerbs},
	}
	var converting []string
	for _, c := range crds {
		if len(c.allVersions) > 1 {
			converting = append(converting, c.name)
		}
	}
	// An empty resourceNames would grant every CRD: no rule at all then.
	if len(converting) > 0 {
		cluster = append(cluster,
			rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"list", "watch"}},
			rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, ResourceNames: converting, Verbs: []string{"get", "update"}},
		)
	}
	namespaced = []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{CertificateName}, Verbs: CertsVerbs},
	}
	return cluster, namespaced
}

// certsRole renders components/webhook-certs/role.yaml: the ClusterRole
// and the Role of certsRules.
func certsRole(crds []*crd) ([]byte, error) {
	cluster, namespaced := certsRules(crds)
	labels := map[string]any{"app.kubernetes.io/name": "armature"}
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString(`# What the operator needs to manage its webhook serving certificate
# (--webhook-cert-secret, package webhook/certs), each object by name where
# RBAC allows: update both webhook configurations and the CRDs converting
# through the operator (their caBundle), and the Secret ` + CertificateName + `
# in its namespace (the certificate). list and watch of CRDs cannot be
# limited by name: the operator watches the metadata of the CRDs labelled
# ` + ConversionLabel + `. Bound by role_binding.yaml.
`)
	for _, obj := range []map[string]any{
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": CertsRoleName, "labels": labels}, "rules": cluster},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": map[string]any{"name": CertsRoleName, "namespace": Namespace, "labels": labels}, "rules": namespaced},
	} {
		out, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(out)
	}
	return b.Bytes(), nil
}
