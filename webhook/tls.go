package webhook

import (
	"crypto/tls"

	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/armature-dev/armature/webhook/certs"
)

// CipherSuites are the TLS 1.2 cipher suites the project's servers accept:
// ECDHE key exchange (forward secrecy) with an AEAD cipher, AES-GCM or
// ChaCha20-Poly1305 — no CBC, no RSA key exchange, no 3DES or RC4. It is
// certs.CipherSuites, the one list.
var CipherSuites = certs.CipherSuites

// HardenTLS sets the TLS floor of every server the project serves to the
// cluster — the admission and conversion webhook, the metrics endpoint:
// TLS 1.2 at least, TLS 1.2 only with CipherSuites, TLS 1.3 as Go does.
// It fits controller-runtime's webhook.Options.TLSOpts and
// metrics/server.Options.TLSOpts, and keeps what else c says (the
// certificate, GetCertificate, NextProtos). It is certs.HardenTLS.
func HardenTLS(c *tls.Config) { certs.HardenTLS(c) }

// SecureMetrics makes a controller-runtime metrics server serve HTTPS
// with HardenTLS, and only to callers the apiserver authenticates (a
// TokenReview of their bearer token) and authorizes (a
// SubjectAccessReview: get on the non-resource URL /metrics, which the
// ClusterRole armature-metrics-reader grants). The server's identity
// needs create on tokenreviews.authentication.k8s.io and
// subjectaccessreviews.authorization.k8s.io (config/rbac's
// armature-metrics-auth). Without o.CertDir the server makes a self-signed
// certificate at start.
func SecureMetrics(o *metricsserver.Options) {
	o.SecureServing = true
	o.FilterProvider = filters.WithAuthenticationAndAuthorization
	o.TLSOpts = append(o.TLSOpts, HardenTLS)
}
