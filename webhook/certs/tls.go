package certs

import "crypto/tls"

// CipherSuites are the TLS 1.2 cipher suites the project's servers accept:
// ECDHE key exchange (forward secrecy) with an AEAD cipher, AES-GCM or
// ChaCha20-Poly1305 — no CBC, no RSA key exchange, no 3DES or RC4. TLS 1.3
// suites are Go's (all AEAD; Go does not let them be configured).
// webhook.CipherSuites is this list.
var CipherSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// HardenTLS sets the TLS floor of every server the project serves to the
// cluster: TLS 1.2 at least, TLS 1.2 only with CipherSuites, TLS 1.3 as Go
// does. It keeps what else c says (the certificate, GetCertificate,
// NextProtos). webhook.HardenTLS calls it.
func HardenTLS(c *tls.Config) {
	c.MinVersion = tls.VersionTLS12
	c.CipherSuites = append([]uint16(nil), CipherSuites...)
}
