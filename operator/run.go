package operator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	actionsv1alpha1 "github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/configurator"
	"github.com/armature-dev/armature/runtime/credentials"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/webhook"
	"github.com/armature-dev/armature/webhook/certs"
	"github.com/armature-dev/armature/webhook/conversion"
)

// Run starts the manager and blocks until ctx ends.
func Run(ctx context.Context, restCfg *rest.Config, c Config, opts ...Option) error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := registerMetrics(ctrlmetrics.Registry); err != nil {
		return err
	}
	kinds := o.all()
	mopts, selected, err := c.managerOptions(restCfg, len(o.compositions) == 0, kinds)
	if err != nil {
		return err
	}
	certMgr, err := c.webhookServer(&mopts)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(restCfg, mopts)
	if err != nil {
		return err
	}
	if certMgr != nil {
		if err := certMgr.SetupWithManager(mgr); err != nil {
			return err
		}
	}
	installed := installedKinds(mgr.GetRESTMapper(), selected)
	conf, err := c.setupARM(ctx, mgr, restCfg, selected)
	if err != nil {
		return err
	}
	if c.Webhook {
		if err := setupWebhooks(mgr, selected, kinds); err != nil {
			return err
		}
	}
	if err := setupCompositions(mgr, c, o.compositions); err != nil {
		return err
	}
	if err := addChecks(mgr, c.Webhook); err != nil {
		return err
	}
	ctrl.Log.WithName("operator").Info("starting", "kinds", len(selected), "installed", len(installed), "arm", endpointLabel(conf, c.emulator()), "namespaces", c.WatchNamespaces)
	return mgr.Start(ctx)
}

// newScheme is the operator's scheme: core kinds, the generated kinds and
// Actions.
func newScheme(kinds Kinds) (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := kinds.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := actionsv1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return scheme, nil
}

// managerOptions are the manager's options before its webhook server, and
// the descriptors Kinds selects. slim keeps only what the reconciler reads
// in the cache (reconciler.TransformForCache): true without compositions.
func (c *Config) managerOptions(restCfg *rest.Config, slim bool, kinds Kinds) (ctrl.Options, []*descriptor.Descriptor, error) {
	scheme, err := newScheme(kinds)
	if err != nil {
		return ctrl.Options{}, nil, err
	}
	mopts := ctrl.Options{
		Scheme:                 scheme,
		Metrics:                c.metricsOptions(),
		HealthProbeBindAddress: c.ProbeAddr,
		PprofBindAddress:       c.PprofAddr,
		MapperProvider:         NewRESTMapper,
		LeaderElection:         c.LeaderElection,
		LeaderElectionID:       leaderElectionID(c.LeaderElectionID),
		// Secrets are never cached whole: the reconcilers watch their
		// metadata and read the data of the ones they use
		// (reconciler.SecretReader); every other read of a Secret goes to
		// the apiserver. Unrelated Secrets cost the operator no memory.
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true, DisableFor: []client.Object{&corev1.Secret{}}}},
		// Not controller-runtime's priority queue: in v0.22 each of its Adds
		// and Gets walks every queued item (measured at 10,000 objects: half
		// the operator's CPU; fixed upstream in v0.23, kubernetes-sigs/
		// controller-runtime#3416). client-go's queue is O(log n).
		Controller: config.Controller{SkipNameValidation: ptr.To(c.SkipNameValidation)},
	}
	// The cache keeps only what the reconciler reads (memory at scale).
	mopts.Cache.DefaultTransform = reconciler.TransformForCache(slim)
	if len(c.WatchNamespaces) > 0 {
		mopts.Cache.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range c.WatchNamespaces {
			mopts.Cache.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	selected, err := c.Selected(kinds.Descriptors)
	if err != nil {
		return ctrl.Options{}, nil, err
	}
	if c.Shard != "" {
		if err := shardCache(&mopts.Cache, c.Shard); err != nil {
			return ctrl.Options{}, nil, err
		}
	}
	return mopts, selected, nil
}

// webhookServer sets mopts' webhook server when Webhook is set, with its
// certificate: the certificate manager's (returned, to be set up with the
// manager) when WebhookCerts names a Secret, CertDir's, else a self-signed
// one in a new temporary folder.
func (c *Config) webhookServer(mopts *ctrl.Options) (*certs.Manager, error) {
	if !c.Webhook {
		return nil, nil
	}
	var certMgr *certs.Manager
	wo := webhookOptions(*c)
	if c.WebhookCerts.SecretName != "" {
		if c.CertDir != "" {
			return nil, errors.New("--cert-dir and --webhook-cert-secret exclude each other")
		}
		var err error
		if certMgr, err = certs.New(c.WebhookCerts); err != nil {
			return nil, err
		}
		wo.TLSOpts = append(wo.TLSOpts, certMgr.ConfigureTLS)
		mopts.LeaderElectionNamespace = certMgr.Namespace()
	} else if c.CertDir == "" {
		dir, err := os.MkdirTemp("", "armature-webhook-certs-")
		if err != nil {
			return nil, err
		}
		certs, err := webhook.SelfSigned([]string{"localhost", "127.0.0.1"}, 365*24*time.Hour)
		if err != nil {
			return nil, err
		}
		if err := webhook.WriteCertDir(dir, certs); err != nil {
			return nil, err
		}
		wo.CertDir = dir
	}
	mopts.WebhookServer = ctrlwebhook.NewServer(wo)
	return certMgr, nil
}

// setupARM builds the ARM client and the credentials, and sets up the
// reconcilers and Actions of the selected kinds with them: each is served
// while its CRD is installed (kinds.go). It returns the cloud, for the
// start's log line.
func (c *Config) setupARM(ctx context.Context, mgr ctrl.Manager, restCfg *rest.Config, selected []*descriptor.Descriptor) (cloud.Configuration, error) {
	cred, err := c.Credential()
	if err != nil {
		return cloud.Configuration{}, fmt.Errorf("ARM credential: %w", err)
	}
	// One transport for every credential's client: their connections are
	// shared.
	var transport policy.Transporter
	if c.ARMCAFile != "" {
		if transport, err = arm.HTTPClient(c.ARMCAFile); err != nil {
			return cloud.Configuration{}, err
		}
	}
	conf, err := c.CloudConfiguration()
	if err != nil {
		return cloud.Configuration{}, err
	}
	armClient, err := arm.NewClient(arm.Options{Cloud: conf, Credential: cred, Transport: transport, Budget: budget(c.BudgetShare)})
	if err != nil {
		return cloud.Configuration{}, err
	}
	if c.Reconciler.StateKey, err = c.stateKey(ctx, restCfg); err != nil {
		return cloud.Configuration{}, err
	}
	secrets := reconciler.NewSecretReader(mgr.GetCache(), mgr.GetAPIReader())
	creds := credentials.New(secrets, credentials.Binding{Client: armClient, SubscriptionID: c.Reconciler.SubscriptionID}, c.SecretClients(transport), credentials.WithDefaultNamespaces(c.DefaultCredentialNamespaces...))
	serving, err := reconciler.SetupServing(mgr, armClient, selected, c.Reconciler, reconciler.WithCredentials(creds), reconciler.WithSecrets(secrets))
	if err != nil {
		return cloud.Configuration{}, err
	}
	if err := setupActions(mgr, armClient, creds, selected, serving, *c); err != nil {
		return cloud.Configuration{}, err
	}
	if err := setupKinds(mgr, serving, selected); err != nil {
		return cloud.Configuration{}, err
	}
	return conf, nil
}

// setupWebhooks registers the admission webhook of the installed kinds
// and the CRD conversion webhook of kinds served in several versions.
func setupWebhooks(mgr ctrl.Manager, installed []*descriptor.Descriptor, kinds Kinds) error {
	var wopts []webhook.Option
	for gvk, d := range kinds.Defaults {
		wopts = append(wopts, webhook.WithDefaults(gvk, d))
	}
	if err := webhook.Setup(mgr, webhook.New(installed, wopts...)); err != nil {
		return err
	}
	mgr.GetWebhookServer().Register(conversion.Path, conversion.New(kinds.Descriptors))
	return nil
}

// setupCompositions starts the configurator with the kinds compositions
// register; without any, the configurator is not started.
func setupCompositions(mgr ctrl.Manager, c Config, compositions []func(*configurator.Registry) error) error {
	if len(compositions) == 0 {
		return nil
	}
	reg, err := configurator.SetupWithManager(mgr, configurator.WithLeaderElection(c.LeaderElection))
	if err != nil {
		return err
	}
	for _, register := range compositions {
		if err := register(reg); err != nil {
			return err
		}
	}
	return nil
}

// addChecks adds the health and readiness checks; with the webhook, a
// replica is not ready before the webhook serves.
func addChecks(mgr ctrl.Manager, withWebhook bool) error {
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	if withWebhook {
		// Not ready before the webhook serves: the Service must not send
		// admission or conversion requests to a replica that cannot answer.
		if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
			return err
		}
	}
	return nil
}
