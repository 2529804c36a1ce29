package operator

import (
	"crypto/tls"
	"strconv"

	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/armature-dev/armature/webhook"
)

// webhookOptions are the webhook server's options before its certificate
// source: port, certificate folder and the TLS floor (webhook.HardenTLS).
func webhookOptions(c Config) ctrlwebhook.Options {
	return ctrlwebhook.Options{Port: c.WebhookPort, CertDir: c.CertDir, TLSOpts: []func(*tls.Config){webhook.HardenTLS}}
}

// metricsOptions are the metrics server's options: HTTPS with
// authentication and authorization (webhook.SecureMetrics) unless
// InsecureMetrics.
func (c *Config) metricsOptions() metricsserver.Options {
	o := metricsserver.Options{BindAddress: c.MetricsAddr}
	if !c.InsecureMetrics {
		webhook.SecureMetrics(&o)
		o.CertDir = c.MetricsCertDir
	}
	return o
}

// invertedBool is a boolean flag that sets the negation of its value: the
// flag says what is on (--metrics-secure), the Config field what is off,
// so that a Config built in code is secure by default.
type invertedBool struct{ p *bool }

func (b invertedBool) String() string {
	if b.p == nil {
		return "false"
	}
	return strconv.FormatBool(!*b.p)
}

func (b invertedBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*b.p = !v
	return nil
}

func (b invertedBool) IsBoolFlag() bool { return true }
