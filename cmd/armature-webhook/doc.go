// Command armature-webhook serves the armature admission webhook on its
// own: the one validating and the one defaulting handler for every
// generated kind (package webhook), until the operator binary serves them.
//
//	armature-webhook [--port 9443] [--cert-dir DIR | --self-signed --dns-name NAME,...]
//	                 [--kinds Kind,group/Kind,...] [--install-configurations [--url URL]]
//	                 [--metrics-addr :8443 [--metrics-secure=false] [--metrics-cert-dir DIR]]
//
// In a cluster, mount cert-manager's certificate at --cert-dir. Locally,
// --self-signed writes a fresh CA and serving certificate into --cert-dir
// (a temporary folder when unset) and patches the CA into the webhook
// configurations; with --install-configurations it creates or replaces
// them first, for exactly the served kinds.
//
// The webhook serves TLS 1.2 and later only, TLS 1.2 with ECDHE and AEAD
// suites only (webhook.HardenTLS). Metrics are off by default; with
// --metrics-addr they are served over HTTPS to callers the apiserver
// authenticates and authorizes for get on /metrics (webhook.SecureMetrics:
// the ServiceAccount needs create on tokenreviews and
// subjectaccessreviews), or with --metrics-secure=false over plain HTTP.
package main
