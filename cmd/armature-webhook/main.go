package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/webhook"
)

// options are the command's flags.
type options struct {
	host, certDir, kinds, dnsNames, url string
	serviceNamespace, serviceName       string
	metricsAddr, healthAddr             string
	metricsCertDir                      string
	port                                int
	servicePort                         int
	selfSigned, installConfigurations   bool
	metricsSecure                       bool
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("armature-webhook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.host, "host", "", "address to listen on (default all)")
	fs.IntVar(&o.port, "port", 9443, "port to serve the webhook on")
	fs.StringVar(&o.certDir, "cert-dir", "", "folder holding tls.crt and tls.key (default controller-runtime's; a temporary folder with --self-signed)")
	fs.BoolVar(&o.selfSigned, "self-signed", false, "generate a CA and serving certificate into --cert-dir and patch the CA into the webhook configurations")
	fs.StringVar(&o.dnsNames, "dns-name", "armature-webhook.armature-system.svc,localhost", "comma-separated DNS names or IPs of the self-signed certificate")
	fs.StringVar(&o.kinds, "kinds", "", "comma-separated kinds to serve, as Kind or group/Kind (default every generated kind)")
	fs.BoolVar(&o.installConfigurations, "install-configurations", false, "create or replace the webhook configurations for the served kinds")
	fs.StringVar(&o.url, "url", "", "with --install-configurations: base URL the apiserver calls instead of the Service")
	fs.StringVar(&o.serviceNamespace, "service-namespace", webhook.DefaultServiceNamespace, "with --install-configurations: namespace of the webhook Service")
	fs.StringVar(&o.serviceName, "service-name", webhook.DefaultServiceName, "with --install-configurations: name of the webhook Service")
	fs.IntVar(&o.servicePort, "service-port", webhook.DefaultServicePort, "with --install-configurations: port of the webhook Service")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "0", `metrics address ("0" disables)`)
	fs.BoolVar(&o.metricsSecure, "metrics-secure", true, "serve metrics over HTTPS to callers the apiserver authenticates and authorizes for get on /metrics (the ServiceAccount needs create on tokenreviews and subjectaccessreviews); false: plain HTTP to anyone, for local use")
	fs.StringVar(&o.metricsCertDir, "metrics-cert-dir", "", "folder holding tls.crt and tls.key of the metrics endpoint (default: self-signed at start)")
	fs.StringVar(&o.healthAddr, "health-addr", ":8081", `health probe address, /readyz is ready once the webhook serves ("0" disables)`)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return o, nil
}

// groupsOf returns the distinct groups of descriptors (a kind served in
// several versions has one descriptor per version).
func groupsOf(ds []*descriptor.Descriptor) map[string]bool {
	out := map[string]bool{}
	for _, d := range ds {
		out[d.Group] = true
	}
	return out
}

// selectKinds picks the Descriptors named in a comma-separated list of Kind
// or group/Kind (case-insensitive); an empty list picks all. A name that
// matches nothing, or a Kind that is in more than one group, is an error.
func selectKinds(all []*descriptor.Descriptor, list string) ([]*descriptor.Descriptor, error) {
	if strings.TrimSpace(list) == "" {
		return all, nil
	}
	var out []*descriptor.Descriptor
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		var found []*descriptor.Descriptor
		for _, d := range all {
			if strings.EqualFold(name, d.Kind) || strings.EqualFold(name, d.Group+"/"+d.Kind) {
				found = append(found, d)
			}
		}
		switch {
		case len(found) == 0:
			return nil, fmt.Errorf("--kinds: no generated kind %q", name)
		case !strings.Contains(name, "/") && len(groupsOf(found)) > 1:
			return nil, fmt.Errorf("--kinds: %q is in more than one group: write group/Kind", name)
		}
		out = append(out, found...)
	}
	return out, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "armature-webhook:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(stderr, nil)))
	ds, err := selectKinds(apis.Descriptors(), o.kinds)
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return fmt.Errorf("register client-go kinds: %w", err)
	}
	if err := apis.AddToScheme(scheme); err != nil {
		return fmt.Errorf("register generated kinds: %w", err)
	}
	var ca []byte
	if o.selfSigned {
		if ca, err = selfSign(o); err != nil {
			return err
		}
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 scheme,
		Metrics:                o.metricsOptions(),
		HealthProbeBindAddress: o.healthAddr,
		WebhookServer:          ctrlwebhook.NewServer(o.webhookOptions()),
	})
	if err != nil {
		return fmt.Errorf("create manager: %w", err)
	}
	var wopts []webhook.Option
	for gvk, d := range apis.Defaults() {
		wopts = append(wopts, webhook.WithDefaults(gvk, d))
	}
	if err := webhook.Setup(mgr, webhook.New(ds, wopts...)); err != nil {
		return err
	}
	if o.healthAddr != "0" {
		if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
			return fmt.Errorf("add readyz check: %w", err)
		}
	}
	if o.installConfigurations || ca != nil {
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			return fmt.Errorf("create client: %w", err)
		}
		if err := configure(ctx, c, o, ds, ca); err != nil {
			return err
		}
	}
	return mgr.Start(ctx)
}

// webhookOptions are the webhook server's: address, certificate folder
// and the project's TLS floor (webhook.HardenTLS).
func (o *options) webhookOptions() ctrlwebhook.Options {
	return ctrlwebhook.Options{Host: o.host, Port: o.port, CertDir: o.certDir, TLSOpts: []func(*tls.Config){webhook.HardenTLS}}
}

// metricsOptions are the metrics server's: HTTPS with authentication and
// authorization (webhook.SecureMetrics) unless --metrics-secure=false.
func (o *options) metricsOptions() metricsserver.Options {
	m := metricsserver.Options{BindAddress: o.metricsAddr}
	if o.metricsSecure {
		webhook.SecureMetrics(&m)
		m.CertDir = o.metricsCertDir
	}
	return m
}

// selfSign writes a self-signed certificate into o.certDir (a new temporary
// folder when unset) and returns the CA.
func selfSign(o *options) ([]byte, error) {
	certs, err := webhook.SelfSigned(strings.Split(o.dnsNames, ","), 0)
	if err != nil {
		return nil, err
	}
	if o.certDir == "" {
		if o.certDir, err = os.MkdirTemp("", "armature-webhook-certs-"); err != nil {
			return nil, fmt.Errorf("cert dir: %w", err)
		}
	}
	if err := webhook.WriteCertDir(o.certDir, certs); err != nil {
		return nil, err
	}
	return certs.CA, nil
}

// configure installs the webhook configurations, or patches the CA into
// the installed ones.
func configure(ctx context.Context, c client.Client, o *options, ds []*descriptor.Descriptor, ca []byte) error {
	if !o.installConfigurations {
		return webhook.PatchCABundle(ctx, c, ca,
			[]string{webhook.ValidatingConfigurationName}, []string{webhook.MutatingConfigurationName})
	}
	opts := []webhook.ConfigOption{webhook.WithService(o.serviceNamespace, o.serviceName, int32(o.servicePort))}
	if o.url != "" {
		opts = append(opts, webhook.WithURL(o.url))
	}
	if ca != nil {
		opts = append(opts, webhook.WithCABundle(ca))
	}
	return webhook.InstallConfigurations(ctx, c,
		webhook.ValidatingWebhookConfiguration(ds, opts...), webhook.MutatingWebhookConfiguration(ds, opts...))
}
