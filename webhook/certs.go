package webhook

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// File names in a certificate directory, as controller-runtime's webhook
// server and cert-manager's Secrets name them.
const (
	CertFile   = "tls.crt"
	KeyFile    = "tls.key"
	CAFile     = "ca.crt"
	certPEM    = "CERTIFICATE"
	keyPEM     = "EC PRIVATE KEY"
	caValidity = 10 * 365 * 24 * time.Hour
	// DefaultCertValidity is how long a self-signed serving certificate is
	// valid unless told otherwise: one year.
	DefaultCertValidity = 365 * 24 * time.Hour
)

// errNoDNSNames is returned for a serving certificate without names.
var errNoDNSNames = errors.New("a serving certificate needs at least one DNS name or IP")

// Certificates is a self-signed CA and a serving certificate it signed, in
// PEM.
type Certificates struct {
	// CA is the CA certificate: the caBundle of the webhook configurations.
	CA []byte
	// Cert and Key are the serving certificate and its private key.
	Cert, Key []byte
}

// SelfSigned generates a CA and a serving certificate for hosts (DNS names
// or IP addresses), ECDSA P-256, valid for validFor (DefaultCertValidity
// when zero). It is for local and development use; in a cluster mount
// cert-manager's certificate instead.
func SelfSigned(hosts []string, validFor time.Duration) (*Certificates, error) {
	if len(hosts) == 0 {
		return nil, errNoDNSNames
	}
	if validFor <= 0 {
		validFor = DefaultCertValidity
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "armature-webhook-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate serving key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validFor),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("marshal serving key: %w", err)
	}
	return &Certificates{
		CA:   pem.EncodeToMemory(&pem.Block{Type: certPEM, Bytes: caDER}),
		Cert: pem.EncodeToMemory(&pem.Block{Type: certPEM, Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: keyPEM, Bytes: keyDER}),
	}, nil
}

// serial returns a random 128-bit serial number.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		// crypto/rand does not fail on supported platforms.
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return n
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
