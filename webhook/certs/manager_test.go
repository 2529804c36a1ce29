package certs

import (
	"crypto/tls"
	"testing"
)

// TestConfigureTLSHardens: the webhook server of the managed certificate
// gets the project's TLS floor with the certificate.
func TestConfigureTLSHardens(t *testing.T) {
	m, err := New(Options{SecretName: "armature-webhook-cert", Namespace: "armature-system"})
	if err != nil {
		t.Fatal(err)
	}
	c := &tls.Config{}
	m.ConfigureTLS(c)
	if c.GetCertificate == nil || c.MinVersion != tls.VersionTLS12 || len(c.CipherSuites) == 0 {
		t.Errorf("configured: GetCertificate %v, MinVersion %x, suites %v", c.GetCertificate != nil, c.MinVersion, c.CipherSuites)
	}
}
