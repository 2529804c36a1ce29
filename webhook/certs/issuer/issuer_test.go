package issuer

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"testing"
	"time"
)

func TestIssue(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		reason  string
		req     Request
		verify  string
		caUntil time.Time
	}{
		"defaults": {
			reason:  "the CA lives as long as the serving certificate by default",
			req:     Request{Hosts: []string{"svc.ns.svc"}, Now: now},
			verify:  "svc.ns.svc",
			caUntil: now.Add(DefaultValidity),
		},
		"ip": {
			reason:  "an IP host is an IP SAN the certificate verifies for",
			req:     Request{Hosts: []string{"localhost", "127.0.0.1"}, Now: now, Validity: time.Hour, CAValidity: 2 * time.Hour},
			verify:  "127.0.0.1",
			caUntil: now.Add(2 * time.Hour),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Issue(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			pair, err := tls.X509KeyPair(got.CertPEM, got.KeyPEM)
			if err != nil {
				t.Fatalf("%s: key pair: %v", tc.reason, err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(got.CAPEM) {
				t.Fatalf("%s: CAPEM holds no certificate", tc.reason)
			}
			if _, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: tc.verify, CurrentTime: now}); err != nil {
				t.Errorf("%s: %v", tc.reason, err)
			}
			if !got.CA.NotAfter.Equal(tc.caUntil) || !got.CA.IsCA {
				t.Errorf("%s: CA until %s (IsCA %t), want %s", tc.reason, got.CA.NotAfter, got.CA.IsCA, tc.caUntil)
			}
			if want := now.Add(-DefaultBackdate); !pair.Leaf.NotBefore.Equal(want) {
				t.Errorf("%s: valid from %s, want %s", tc.reason, pair.Leaf.NotBefore, want)
			}
		})
	}
}

func TestIssueNoHosts(t *testing.T) {
	if _, err := Issue(Request{}); !errors.Is(err, ErrNoHosts) {
		t.Errorf("Issue without hosts: %v, want ErrNoHosts", err)
	}
}
