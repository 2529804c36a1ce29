package operator

import (
	"crypto/tls"
	"fmt"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/armature-dev/armature/runtime/action"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/configurator"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/webhook"
)

// registerMetrics registers the metrics the operator serves with r
// (controller-runtime's metrics.Registry, which the manager's metrics
// server serves): the reconciler's, the ARM client's (budget) and the
// configurator's. The packages register nothing themselves (package
// runtime/metrics); calling it again, for an operator restarted in one
// process, is not an error.
func registerMetrics(r prometheus.Registerer) error {
	if err := reconciler.RegisterMetrics(r); err != nil {
		return fmt.Errorf("reconciler metrics: %w", err)
	}
	if err := arm.RegisterMetrics(r); err != nil {
		return fmt.Errorf("arm metrics: %w", err)
	}
	if err := configurator.RegisterMetrics(r); err != nil {
		return fmt.Errorf("configurator metrics: %w", err)
	}
	if err := action.RegisterMetrics(r); err != nil {
		return fmt.Errorf("action metrics: %w", err)
	}
	return nil
}

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
