package webhook_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/armature-dev/armature/webhook"
	"github.com/armature-dev/armature/webhook/tlstest"
)

// serveWebhook starts controller-runtime's webhook server, as the
// operator and cmd/armature-webhook build it, with opts, on a free port of
// localhost with a self-signed certificate, and returns its address.
func serveWebhook(t *testing.T, opts ...func(*tls.Config)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	certs, err := webhook.SelfSigned([]string{"localhost", "127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := webhook.WriteCertDir(dir, certs); err != nil {
		t.Fatal(err)
	}
	srv := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: dir, TLSOpts: opts})
	srv.Register("/validate", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for srv.StartedChecker()(nil) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the webhook server did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "127.0.0.1:" + strconv.Itoa(port)
}

// TestHardenTLS: the served webhook refuses TLS 1.1, and CBC and RSA key
// exchange suites under TLS 1.2; it accepts TLS 1.2 with ECDHE and an AEAD
// suite, and TLS 1.3.
func TestHardenTLS(t *testing.T) {
	tlstest.Check(t, serveWebhook(t, webhook.HardenTLS))
}

// TestHardenTLSKeepsTheRest: HardenTLS changes the version floor and the
// suites, nothing else a server set.
func TestHardenTLSKeepsTheRest(t *testing.T) {
	get := func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return nil, nil }
	c := &tls.Config{NextProtos: []string{"h2"}, GetCertificate: get, MinVersion: tls.VersionTLS10}
	webhook.HardenTLS(c)
	if c.MinVersion != tls.VersionTLS12 || len(c.CipherSuites) != len(webhook.CipherSuites) || c.GetCertificate == nil || len(c.NextProtos) != 1 {
		t.Errorf("hardened: %+v", c)
	}
	c.CipherSuites[0] = 0
	if webhook.CipherSuites[0] == 0 {
		t.Error("HardenTLS shares its suite list with the config it changed")
	}
}
