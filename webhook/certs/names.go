package certs

// File names of a certificate directory and keys of the Secret, as
// controller-runtime's webhook server and cert-manager's Secrets name
// them. Package webhook refers to these (it imports certs, not the other
// way round).
const (
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
	CAFile   = "ca.crt"
)

// Names of the webhook's Service and configurations, the defaults of
// Options. Package webhook's constants of the same names refer to these.
const (
	// DefaultServiceName is the webhook Service.
	DefaultServiceName = "armature-webhook"
	// ValidatingConfigurationName names the ValidatingWebhookConfiguration.
	ValidatingConfigurationName = "armature-validating"
	// MutatingConfigurationName names the MutatingWebhookConfiguration.
	MutatingConfigurationName = "armature-defaulting"
)
