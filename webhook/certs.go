package webhook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/webhook/certs"
	"github.com/armature-dev/armature/webhook/certs/issuer"
)

// File names in a certificate directory, as controller-runtime's webhook
// server and cert-manager's Secrets name them (package certs defines them).
const (
	CertFile   = certs.CertFile
	KeyFile    = certs.KeyFile
	CAFile     = certs.CAFile
	caValidity = 10 * 365 * 24 * time.Hour
	// DefaultCertValidity is how long a self-signed serving certificate is
	// valid unless told otherwise: one year.
	DefaultCertValidity = issuer.DefaultValidity
)

// Certificates is a self-signed CA and a serving certificate it signed, in
// PEM.
type Certificates struct {
	// CA is the CA certificate: the caBundle of the webhook configurations.
	CA []byte
	// Cert and Key are the serving certificate and its private key.
	Cert, Key []byte
}

// SelfSigned generates a CA (valid ten years) and a serving certificate
// for hosts (DNS names or IP addresses), ECDSA P-256, valid for validFor
// (DefaultCertValidity when zero), with the project's one issuer
// (issuer.Issue). It is for local and development use; in a cluster mount
// cert-manager's certificate or use package certs instead.
func SelfSigned(hosts []string, validFor time.Duration) (*Certificates, error) {
	is, err := issuer.Issue(issuer.Request{
		Hosts:      hosts,
		CAName:     "armature-webhook-ca",
		Validity:   validFor,
		CAValidity: caValidity,
		Backdate:   time.Hour,
	})
	if err != nil {
		return nil, err
	}
	return &Certificates{CA: is.CAPEM, Cert: is.CertPEM, Key: is.KeyPEM}, nil
}

// WriteCertDir writes tls.crt, tls.key and ca.crt into dir (created 0700),
// where the webhook server's CertDir reads them.
func WriteCertDir(dir string, c *Certificates) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create cert dir: %w", err)
	}
	for name, data := range map[string][]byte{CertFile: c.Cert, KeyFile: c.Key, CAFile: c.CA} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// PatchCABundle sets caBundle on every webhook of the named validating and
// mutating webhook configurations, with a merge patch each (optimistic
// lock: a concurrent change makes it fail rather than be lost). A named
// configuration that does not exist is an error.
func PatchCABundle(ctx context.Context, c client.Client, caBundle []byte, validating, mutating []string) error {
	for _, name := range validating {
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, cfg); err != nil {
			return fmt.Errorf("get ValidatingWebhookConfiguration %s: %w", name, err)
		}
		base := cfg.DeepCopy()
		for i := range cfg.Webhooks {
			cfg.Webhooks[i].ClientConfig.CABundle = caBundle
		}
		if err := c.Patch(ctx, cfg, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("patch caBundle of ValidatingWebhookConfiguration %s: %w", name, err)
		}
	}
	for _, name := range mutating {
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, cfg); err != nil {
			return fmt.Errorf("get MutatingWebhookConfiguration %s: %w", name, err)
		}
		base := cfg.DeepCopy()
		for i := range cfg.Webhooks {
			cfg.Webhooks[i].ClientConfig.CABundle = caBundle
		}
		if err := c.Patch(ctx, cfg, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("patch caBundle of MutatingWebhookConfiguration %s: %w", name, err)
		}
	}
	return nil
}
