package certs

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// ConversionLabel marks the CRDs whose conversion webhook is the operator's
// (config/components/conversion sets it): their caBundle is managed here.
const (
	ConversionLabel      = "armature.dev/conversion"
	ConversionLabelValue = "webhook"
)

// Defaults of Options.
const (
	// DefaultValidity is how long a CA and its serving certificate are
	// valid: one year.
	DefaultValidity = 365 * 24 * time.Hour
	// DefaultResync is how often the leader checks the certificate and the
	// caBundles without a change to react to.
	DefaultResync = 10 * time.Minute
)

// namespaceFile holds the pod's namespace in a pod with a ServiceAccount.
const namespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Options configure the certificate management. Only SecretName is
// required; the rest have defaults.
type Options struct {
	// SecretName names the Secret holding tls.crt, tls.key and ca.crt in
	// Namespace. Empty disables the management. Flag --webhook-cert-secret.
	SecretName string
	// Namespace is the operator's namespace, where the Secret and the
	// webhook Service are. Defaults to the environment variable
	// POD_NAMESPACE, else the namespace of the pod's ServiceAccount.
	Namespace string
	// Service is the webhook Service: the certificate is for
	// <Service>.<Namespace>.svc and <Service>.<Namespace>.svc.cluster.local.
	// Defaults to DefaultServiceName.
	Service string
	// ValidatingConfiguration and MutatingConfiguration name the webhook
	// configurations whose every webhook gets the CA bundle. Default to
	// ValidatingConfigurationName and MutatingConfigurationName.
	ValidatingConfiguration, MutatingConfiguration string
	// Validity is the lifetime of each CA and serving certificate.
	// Defaults to DefaultValidity. Flag --webhook-cert-validity.
	Validity time.Duration
	// RenewBefore is how long before expiry a certificate is replaced.
	// Defaults to a third of Validity. Flag --webhook-cert-renew-before.
	RenewBefore time.Duration
	// Resync is how often the leader checks without a change to react to.
	// Defaults to DefaultResync.
	Resync time.Duration

	// now is the clock; time.Now unless a test sets it.
	now func() time.Time
}

// BindFlags registers the flags of the options that are flags.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.SecretName, "webhook-cert-secret", "", "with --webhook: manage the serving certificate in this Secret of the operator's namespace (issue, inject the CA, rotate); empty: use --cert-dir")
	fs.DurationVar(&o.Validity, "webhook-cert-validity", DefaultValidity, "lifetime of each CA and serving certificate issued for --webhook-cert-secret")
	fs.DurationVar(&o.RenewBefore, "webhook-cert-renew-before", 0, "replace a certificate this long before it expires (default a third of --webhook-cert-validity)")
}

// errNoNamespace is returned when the namespace is not given and the
// operator does not run in a pod.
var errNoNamespace = errors.New("webhook certificates: no namespace: set POD_NAMESPACE (outside a pod)")

// withDefaults returns o with its defaults filled in, or why o is invalid.
func (o Options) withDefaults() (Options, error) {
	if o.SecretName == "" {
		return o, errors.New("webhook certificates: no Secret name")
	}
	if o.Namespace == "" {
		o.Namespace = os.Getenv("POD_NAMESPACE")
	}
	if o.Namespace == "" {
		b, err := os.ReadFile(namespaceFile)
		if err != nil {
			return o, errNoNamespace
		}
		o.Namespace = strings.TrimSpace(string(b))
	}
	if o.Service == "" {
		o.Service = DefaultServiceName
	}
	if o.ValidatingConfiguration == "" {
		o.ValidatingConfiguration = ValidatingConfigurationName
	}
	if o.MutatingConfiguration == "" {
		o.MutatingConfiguration = MutatingConfigurationName
	}
	if o.Validity == 0 {
		o.Validity = DefaultValidity
	}
	if o.RenewBefore == 0 {
		o.RenewBefore = o.Validity / 3
	}
	if o.Resync == 0 {
		o.Resync = DefaultResync
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.Validity < 0 || o.RenewBefore < 0 || o.RenewBefore >= o.Validity {
		return o, fmt.Errorf("webhook certificates: renew-before %s must be shorter than the validity %s", o.RenewBefore, o.Validity)
	}
	return o, nil
}

// hosts are the DNS names the serving certificate is for.
func (o Options) hosts() []string {
	svc := o.Service + "." + o.Namespace + ".svc"
	return []string{svc, svc + ".cluster.local"}
}

// conversionSelector selects the CRDs carrying ConversionLabel.
func conversionSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{ConversionLabel: ConversionLabelValue})
}
