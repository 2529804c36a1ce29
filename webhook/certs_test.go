package webhook

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

const serviceDNS = "armature-webhook.armature-system.svc"

// TestSelfSigned checks that the serving certificate verifies against the
// CA for its names, and only for them.
func TestSelfSigned(t *testing.T) {
	certs, err := SelfSigned([]string{serviceDNS, "localhost", "127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certs.CA) {
		t.Fatal("CA PEM does not parse")
	}
	block, _ := pem.Decode(certs.Cert)
	if block == nil {
		t.Fatal("certificate PEM does not parse")
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(name string) string {
		_, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		if err != nil {
			return "rejected"
		}
		return "verified"
	}
	got := map[string]string{}
	for _, n := range []string{serviceDNS, "localhost", "127.0.0.1", "evil.example.com"} {
		got[n] = verify(n)
	}
	key, ok := leaf.PublicKey.(*ecdsa.PublicKey)
	got["P-256"] = map[bool]string{true: "yes", false: "no"}[ok && key.Curve == elliptic.P256()]
	want := map[string]string{serviceDNS: "verified", "localhost": "verified", "127.0.0.1": "verified", "evil.example.com": "rejected", "P-256": "yes"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
	if _, err := SelfSigned(nil, 0); err == nil {
		t.Error("SelfSigned without names: want an error")
	}
}

// TestWriteCertDir writes files the webhook server can load.
func TestWriteCertDir(t *testing.T) {
	certs, err := SelfSigned([]string{"localhost"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "serving-certs")
	if err := WriteCertDir(dir, certs); err != nil {
		t.Fatal(err)
	}
	if _, err := tls.LoadX509KeyPair(filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)); err != nil {
		t.Errorf("load written key pair: %v", err)
	}
}

// TestPatchCABundle patches every webhook of the named configurations and
// fails for a missing one.
func TestPatchCABundle(t *testing.T) {
	ds := allDescriptors()
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).
		WithObjects(ValidatingWebhookConfiguration(ds), MutatingWebhookConfiguration(ds)).Build()
	ctx := context.Background()
	if err := PatchCABundle(ctx, c, []byte("CA"), []string{ValidatingConfigurationName}, []string{MutatingConfigurationName}); err != nil {
		t.Fatal(err)
	}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := c.Get(ctx, client.ObjectKey{Name: ValidatingConfigurationName}, v); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: MutatingConfigurationName}, m); err != nil {
		t.Fatal(err)
	}
	got := []string{string(v.Webhooks[0].ClientConfig.CABundle), string(m.Webhooks[0].ClientConfig.CABundle)}
	if diff := cmp.Diff([]string{"CA", "CA"}, got); diff != "" {
		t.Errorf("caBundle -want +got:\n%s", diff)
	}
	if err := PatchCABundle(ctx, c, []byte("CA"), []string{"missing"}, nil); err == nil {
		t.Error("PatchCABundle of a missing configuration: want an error")
	}
}

// TestInstallConfigurations creates, then replaces, the configurations.
func TestInstallConfigurations(t *testing.T) {
	ds := allDescriptors()
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).Build()
	ctx := context.Background()
	for _, ca := range []string{"first", "second"} {
		if err := InstallConfigurations(ctx, c, ValidatingWebhookConfiguration(ds, WithCABundle([]byte(ca))), MutatingWebhookConfiguration(ds, WithCABundle([]byte(ca)))); err != nil {
			t.Fatalf("install with CA %s: %v", ca, err)
		}
	}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := c.Get(ctx, client.ObjectKey{Name: ValidatingConfigurationName}, v); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: MutatingConfigurationName}, m); err != nil {
		t.Fatal(err)
	}
	got := []string{string(v.Webhooks[0].ClientConfig.CABundle), string(m.Webhooks[0].ClientConfig.CABundle)}
	if diff := cmp.Diff([]string{"second", "second"}, got); diff != "" {
		t.Errorf("caBundle -want +got:\n%s", diff)
	}
}
