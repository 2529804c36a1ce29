package render

import (
	"encoding/base64"
	"fmt"
	"os"
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

// SelfSigned renders an overlay that serves the admission and conversion
// webhooks without cert-manager: config/default, config/webhook, the
// webhook-server and conversion components, a Secret holding a fresh CA
// and serving certificate for the webhook Service (package webhook's
// SelfSigned), and the CA patched into every webhook of both
// configurations and into the converting CRDs. The files hold a private key: they are for
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
	counts, err := webhookCounts(filepath.Join(o.Config, "webhook", "manifests.yaml"))
	if err != nil {
		return nil, err
	}
	files := Files{}
	patches := map[string]string{}
	for _, name := range []string{webhook.ValidatingConfigurationName, webhook.MutatingConfigurationName} {
		var ops []map[string]any
		for i := 0; i < counts[name]; i++ {
			ops = append(ops, map[string]any{
				"op": "add", "path": fmt.Sprintf("/webhooks/%d/clientConfig/caBundle", i), "value": base64.StdEncoding.EncodeToString(certs.CA),
			})
		}
		if len(ops) == 0 {
			return nil, fmt.Errorf("render: %s/webhook/manifests.yaml has no webhook in %s", o.Config, name)
		}
		patch, err := yaml.Marshal(ops)
		if err != nil {
			return nil, err
		}
		patches[name] = "ca-bundle-" + name + ".yaml"
		files[patches[name]] = append([]byte(Header+"# The self-signed CA, trusted by every webhook of "+name+".\n"), patch...)
	}
	conv, err := yaml.Marshal([]map[string]any{{
		"op": "add", "path": "/spec/conversion/webhook/clientConfig/caBundle", "value": base64.StdEncoding.EncodeToString(certs.CA),
	}})
	if err != nil {
		return nil, err
	}
	files["ca-bundle-conversion.yaml"] = append([]byte(Header+"# The self-signed CA, trusted by the CRDs' conversion webhook.\n"), conv...)
	kust := fmt.Sprintf(`%s# The operator with its admission and conversion webhooks and a self-signed
# serving certificate, made by
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
- %[3]s/components/conversion
patches:
- path: %[6]s
  target:
    group: admissionregistration.k8s.io
    kind: ValidatingWebhookConfiguration
    name: %[4]s
- path: %[7]s
  target:
    group: admissionregistration.k8s.io
    kind: MutatingWebhookConfiguration
    name: %[5]s
- path: ca-bundle-conversion.yaml
  target:
    group: apiextensions.k8s.io
    kind: CustomResourceDefinition
    labelSelector: %[8]s
`, Header, o.Namespace, rel, webhook.ValidatingConfigurationName, webhook.MutatingConfigurationName,
		patches[webhook.ValidatingConfigurationName], patches[webhook.MutatingConfigurationName], ConversionLabel)
	files["kustomization.yaml"] = []byte(kust)
	files["webhook-cert.yaml"] = append([]byte(Header+"# The webhook's serving certificate and its CA (self-signed).\n"), secret...)
	return files, nil
}

// webhookCounts reads how many webhooks each configuration in a rendered
// webhook/manifests.yaml has.
func webhookCounts(path string) (map[string]int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("render: the webhook configurations: %w", err)
	}
	docs, err := documents(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]int{}
	for _, d := range docs {
		var c struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Webhooks []any `json:"webhooks"`
		}
		if err := yaml.Unmarshal(d, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[c.Metadata.Name] = len(c.Webhooks)
	}
	return out, nil
}
