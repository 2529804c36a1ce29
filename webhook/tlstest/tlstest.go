package tlstest

import (
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// Case is one client handshake and whether the server must accept it.
type Case struct {
	// Reason says why the server accepts or refuses it.
	Reason string
	// Config is the client's TLS configuration (InsecureSkipVerify is set
	// by Check: the tests are about versions and suites, not trust).
	Config *tls.Config
	// Accept is whether the handshake must succeed.
	Accept bool
}

// Cases are the handshakes Check tries: old versions and TLS 1.2 suites
// without forward secrecy or AEAD are refused; TLS 1.2 with ECDHE and
// AES-GCM or ChaCha20-Poly1305, and TLS 1.3, are accepted.
func Cases() map[string]Case {
	tls12 := func(suites ...uint16) *tls.Config {
		return &tls.Config{MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS12, CipherSuites: suites}
	}
	return map[string]Case{
		"TLS11": {
			Reason: "TLS 1.1 is below the floor.",
			Config: &tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11},
		},
		"TLS12CBC": {
			Reason: "CBC suites (Lucky13-style padding oracles) are not offered under TLS 1.2.",
			Config: tls12(tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
				tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
				tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256),
		},
		"TLS12RSAKeyExchange": {
			Reason: "RSA key exchange (no forward secrecy) is not offered, even with GCM.",
			Config: tls12(tls.TLS_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_AES_256_GCM_SHA384),
		},
		"TLS12GCM": {
			Reason: "ECDHE with AES-GCM is the TLS 1.2 suite every client has.",
			Config: tls12(tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256),
			Accept: true,
		},
		"TLS12ChaCha20": {
			Reason: "ECDHE with ChaCha20-Poly1305 is accepted.",
			Config: tls12(tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256),
			Accept: true,
		},
		"TLS13": {
			Reason: "TLS 1.3 is served as Go serves it.",
			Config: &tls.Config{MinVersion: tls.VersionTLS13},
			Accept: true,
		},
	}
}

// Check dials addr with each of Cases, one subtest each, and fails those
// the server answers otherwise than the case says.
func Check(t *testing.T, addr string) {
	t.Helper()
	for name, tc := range Cases() {
		t.Run(name, func(t *testing.T) {
			cfg := tc.Config.Clone()
			cfg.InsecureSkipVerify = true //nolint:gosec // versions and suites are under test, not trust
			conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
			if err == nil {
				conn.Close()
			}
			if accepted := err == nil; accepted != tc.Accept {
				t.Errorf("%s\nhandshake with %s: accepted %v, want %v (err %v)", tc.Reason, addr, accepted, tc.Accept, err)
			}
		})
	}
}
