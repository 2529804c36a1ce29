package render

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/webhook"
)

// SelfSignedOptions say where the self-signed overlay goes.
type SelfSignedOptions struct {
	// Config is the config/ folder the overlay builds on. Required.
	Config string
	// Out is the overlay's folder. Required.
	Out string
	// Namespace is the operator's namespace. Defaults to Namespace.
	Namespace string
	// ValidFor is the serving certificate's lifetime. Defaults to
	// webhook.DefaultCertValidity (one year).
	ValidFor time.Duration
}

// SelfSigned renders an overlay that serves the webhook without
// cert-manager: config/default, config/webhook and the webhook-server
// component, a Secret holding a fresh CA and serving certificate for the
// webhook Service (package webhook's SelfSigned), and the CA patched into
// both webhook configurations. The files hold a private key: they are for
// one cluster and are not to be committed.
func SelfSigned(o SelfSignedOptions) (Files, error) {
	if o.Namespace == "" {
		o.Namespace = Namespace
	}
	absConfig, err := filepath.Abs(o.Config)
	if err != nil {
		return nil, err
	}
	absOut, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(absOut, absConfig)
	if err != nil {
		return nil, fmt.Errorf("render: %s relative to %s: %w", o.Config, o.Out, err)
	}
	rel = filepath.ToSlash(rel)
	svc := "armature-webhook." + o.Namespace + ".svc"
	certs, err := webhook.SelfSigned([]string{svc, svc + ".cluster.local"}, o.ValidFor)
	if err != nil {
		return nil, err
	}
	secret, err := yaml.Marshal(map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"type":       "kubernetes.io/tls",
		"metadata":   map[string]any{"name": CertificateName},
		"data": map[string]any{
			webhook.CertFile: certs.Cert,
			webhook.KeyFile:  certs.Key,
			webhook.CAFile:   certs.CA,
		},
	})
	if err != nil {
		return nil, err
	}
	patch, err := yaml.Marshal([]map[string]any{{
		"op": "add", "path": "/webhooks/0/clientConfig/caBundle", "value": base64.StdEncoding.EncodeToString(certs.CA),
	}})
	if err != nil {
		return nil, err
	}
	kust := fmt.Sprintf(`%s# The operator with its webhook and a self-signed serving certificate, made by
#   go run ./hack/manifests self-signed -out <folder>
# The Secret holds a private key: do not commit this folder. Run the
# command again to rotate the certificate, and re-apply.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: %[2]s
resources:
- %[3]s/default
- %[3]s/webhook
- webhook-cert.yaml
components:
- %[3]s/components/webhook-server
patches:
- path: ca-bundle.yaml
  target:
    group: admissionregistration.k8s.io
    kind: ValidatingWebhookConfiguration
    name: %[4]s
- path: ca-bundle.yaml
  target:
    group: admissionregistration.k8s.io
    kind: MutatingWebhookConfiguration
    name: %[5]s
`, Header, o.Namespace, rel, webhook.ValidatingConfigurationName, webhook.MutatingConfigurationName)
	return Files{
		"kustomization.yaml": []byte(kust),
		"webhook-cert.yaml":  append([]byte(Header+"# The webhook's serving certificate and its CA (self-signed).\n"), secret...),
		"ca-bundle.yaml":     append([]byte(Header+"# The self-signed CA, trusted by the webhook configuration.\n"), patch...),
	}, nil
}
