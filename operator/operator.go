package operator

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	actionsv1alpha1 "github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/action"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/configurator"
	"github.com/armature-dev/armature/runtime/credentials"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/webhook/certs"
)

// Config is the operator's whole configuration. Defaults are set by
// BindFlags (from the environment, else the documented value).
type Config struct {
	// Reconciler holds sync period, workers, subscription and poll interval.
	Reconciler reconciler.Config
	// Cloud is the Azure cloud: AzurePublic, AzureUSGovernment or
	// AzureChina (arm.LookupCloud, which also takes the Azure CLI's names);
	// it gives the ARM endpoint, the token audience and the Azure AD
	// authority host of the operator's own credential and of credential
	// Secrets that name no cloud. A custom cloud (Azure Stack Hub) is
	// ARMEndpoint, ARMAudience and AuthorityHost over it. Default
	// AzurePublic. Env ARMATURE_CLOUD, else AZURE_CLOUD.
	Cloud string
	// ARMEndpoint is the ARM endpoint in place of Cloud's. Alone (no Cloud,
	// no ARMAudience) it is an emulator's: the operator's own credential is
	// then ARMToken. Default Cloud's, with azidentity's
	// DefaultAzureCredential (environment, workload identity, managed
	// identity, Azure CLI). Env ARMATURE_ARM_ENDPOINT.
	ARMEndpoint string
	// ARMAudience is the audience ARM tokens are asked for (scope
	// "<audience>/.default") in place of Cloud's, for a custom cloud.
	// Default Cloud's (https://management.core.windows.net/ for
	// AzurePublic). Env ARMATURE_ARM_AUDIENCE.
	ARMAudience string
	// ARMCAFile is a PEM file to trust for ARMEndpoint (the emulator's
	// certificate). Env ARMATURE_ARM_CA_FILE.
	ARMCAFile string
	// ARMToken is the bearer token sent to an emulator's ARMEndpoint (any
	// token suits the emulator). Env ARMATURE_ARM_TOKEN; default "armature".
	ARMToken string
	// AuthorityHost is the Azure AD endpoint the operator's credential and
	// credential Secrets (namespace armature-credential Secrets and the
	// armature.dev/credential annotation) that name no other cloud
	// authenticate with, in place of Cloud's; one no known cloud has also
	// turns off Azure AD instance discovery. Default Cloud's, or an
	// emulator's ARMEndpoint (the emulator serves a token endpoint). Env
	// AZURE_AUTHORITY_HOST.
	AuthorityHost string
	// FederatedTokenDir is the folder a credential Secret's
	// federatedTokenFile must lie in (the operator never reads other files
	// a Secret names). Default /var/run/secrets/azure/tokens, where the
	// workload identity webhook projects tokens. Env
	// ARMATURE_FEDERATED_TOKEN_DIR.
	FederatedTokenDir string
	// WatchNamespaces limits the operator to these namespaces (all when
	// empty), for sharding by namespace. Env ARMATURE_WATCH_NAMESPACES.
	WatchNamespaces []string
	// Kinds is a comma-separated list of path.Match patterns over
	// "<group>/<Kind>" selecting the kinds to run (all installed when empty).
	Kinds string
	// MetricsAddr serves Prometheus metrics. Default ":8443" (BindFlags;
	// controller-runtime's ":8080" when empty); "0" disables.
	MetricsAddr string
	// InsecureMetrics serves metrics over plain HTTP to anyone who can
	// reach the port, for local use. Default false: HTTPS (webhook.HardenTLS)
	// to callers whose bearer token the apiserver authenticates and
	// authorizes for get on /metrics (ClusterRole armature-metrics-reader;
	// webhook.SecureMetrics). Flag --metrics-secure=false, env
	// ARMATURE_METRICS_SECURE=false.
	InsecureMetrics bool
	// MetricsCertDir holds tls.crt and tls.key of the metrics endpoint.
	// Default "": a self-signed certificate made at start. Env
	// ARMATURE_METRICS_CERT_DIR.
	MetricsCertDir string
	// ProbeAddr serves /healthz and /readyz. Default ":8081".
	ProbeAddr string
	// PprofAddr serves Go's /debug/pprof (memory and CPU profiles).
	// Default "" (off).
	PprofAddr string
	// LeaderElection makes replicas elect one active leader. Default false
	// locally; the Deployment turns it on.
	LeaderElection bool
	// LeaderElectionID names the Lease replicas elect a leader with. Shards
	// (operators with different WatchNamespaces) in one namespace need one
	// each. Default "armature-operator.armature.dev".
	LeaderElectionID string
	// Webhook serves the admission webhook and the CRD conversion webhook
	// (at /convert). Default false.
	Webhook bool
	// WebhookPort is the webhook server's port. Default 9443.
	WebhookPort int
	// CertDir holds tls.crt/tls.key for the webhook. Empty with Webhook set
	// and no WebhookCerts.SecretName means a self-signed certificate is
	// generated (local and dev).
	CertDir string
	// Shard limits the operator to the custom resources labelled
	// armature.dev/shard=<Shard> ("-": those without the label), for
	// sharding one namespace's objects across operators; each shard needs
	// its own LeaderElectionID. Empty: every object. Env ARMATURE_SHARD.
	Shard string
	// BudgetShare is the share of ARM's per-subscription limits this
	// operator's budget uses (runtime/arm Budget), so shards that use one
	// subscription stay inside it together. Default 1. Env
	// ARMATURE_ARM_BUDGET_SHARE.
	BudgetShare float64
	// WebhookCerts, when its SecretName is set with Webhook, makes the
	// operator manage its serving certificate in that Secret (package
	// webhook/certs): issue, inject the CA, rotate, serve it on every
	// replica. Its namespace is also the leader election's. Flags
	// --webhook-cert-*.
	WebhookCerts certs.Options
	// DefaultCredentialNamespaces are the namespaces whose objects without
	// a credential Secret use the operator's own credential; "*" is every
	// namespace. Default none: an object needs its namespace's
	// armature-credential Secret (or the one its armature.dev/credential
	// annotation names), else it is CredentialNotFound and nothing is sent.
	// Env ARMATURE_DEFAULT_CREDENTIAL_NAMESPACES.
	DefaultCredentialNamespaces []string
	// StateKeySecret is the Secret holding the key that binds the
	// reconciler's records (operations in flight, claimed ARM ids) to their
	// objects: "name" in the operator's namespace (POD_NAMESPACE, else the
	// pod's), or "namespace/name". Created with a random key when missing.
	// Default armature-state-key; outside a pod without a namespace the key
	// is random per process. Env ARMATURE_STATE_KEY_SECRET.
	StateKeySecret string
	// StateKey, when set, is the key itself (tests); StateKeySecret is then
	// not read. Not a flag.
	StateKey []byte
	// SkipNameValidation lets several managers with the same controllers
	// run in one process, one after the other (tests that restart the
	// operator). Not a flag. Default false.
	SkipNameValidation bool
}

// BindFlags registers the flags on fs, with defaults from the environment.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	env := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	c.Reconciler = reconciler.Config{}.Default()
	fs.DurationVar(&c.Reconciler.SyncPeriod, "sync-period", c.Reconciler.SyncPeriod, "how often each resource is read back from ARM to detect drift")
	fs.IntVar(&c.Reconciler.WorkersPerKind, "workers-per-kind", c.Reconciler.WorkersPerKind, "concurrent reconciles per kind")
	fs.DurationVar(&c.Reconciler.PollInterval, "poll-interval", c.Reconciler.PollInterval, "wait between polls of an operation when ARM gives no Retry-After")
	fs.StringVar(&c.Reconciler.SubscriptionID, "subscription-id", env("AZURE_SUBSCRIPTION_ID", ""), "subscription of resource groups (env AZURE_SUBSCRIPTION_ID)")
	fs.StringVar(&c.Cloud, "cloud", env("ARMATURE_CLOUD", env("AZURE_CLOUD", "")), "Azure cloud: AzurePublic, AzureUSGovernment or AzureChina; sets the ARM endpoint, token audience and Azure AD (env ARMATURE_CLOUD, AZURE_CLOUD; default AzurePublic)")
	fs.StringVar(&c.ARMEndpoint, "arm-endpoint", env("ARMATURE_ARM_ENDPOINT", ""), "ARM endpoint instead of the cloud's; alone (no --cloud, no --arm-audience) the emulator's, with --arm-token (env ARMATURE_ARM_ENDPOINT; default: the cloud's, with DefaultAzureCredential)")
	fs.StringVar(&c.ARMAudience, "arm-audience", env("ARMATURE_ARM_AUDIENCE", ""), "audience of ARM tokens instead of the cloud's, for a custom cloud with --arm-endpoint and --authority-host (env ARMATURE_ARM_AUDIENCE)")
	fs.StringVar(&c.ARMCAFile, "arm-ca-file", env("ARMATURE_ARM_CA_FILE", ""), "PEM certificate to trust for --arm-endpoint (env ARMATURE_ARM_CA_FILE)")
	fs.StringVar(&c.AuthorityHost, "authority-host", env("AZURE_AUTHORITY_HOST", ""), "Azure AD endpoint instead of the cloud's, of the operator's credential and of credential Secrets (env AZURE_AUTHORITY_HOST; default the cloud's, or the emulator's --arm-endpoint)")
	fs.StringVar(&c.FederatedTokenDir, "federated-token-dir", env("ARMATURE_FEDERATED_TOKEN_DIR", defaultFederatedTokenDir), "folder a credential Secret's federatedTokenFile must lie in (env ARMATURE_FEDERATED_TOKEN_DIR)")
	fs.BoolVar(&c.Reconciler.RegisterProviders, "register-providers", env("ARMATURE_REGISTER_PROVIDERS", "") == "true", "register the subscription with a resource provider when ARM answers MissingSubscriptionRegistration, as the portal does (env ARMATURE_REGISTER_PROVIDERS=true)")
	fs.StringVar(&c.ARMToken, "arm-token", env("ARMATURE_ARM_TOKEN", "armature"), "bearer token for an emulator's --arm-endpoint (env ARMATURE_ARM_TOKEN)")
	fs.Func("watch-namespaces", "comma-separated namespaces to watch (env ARMATURE_WATCH_NAMESPACES; default all)", func(s string) error {
		c.WatchNamespaces = splitList(s)
		return nil
	})
	c.WatchNamespaces = splitList(env("ARMATURE_WATCH_NAMESPACES", ""))
	fs.DurationVar(&c.Reconciler.FirstObservation, "first-observation", c.Reconciler.FirstObservation, "delay of the drift observer's first pass after the start")
	fs.BoolVar(&c.Reconciler.DriftByGET, "drift-by-get", false, "observe every resource with its own GET each sync period instead of one LIST per collection")
	fs.StringVar(&c.Shard, "shard", env("ARMATURE_SHARD", ""), "run only the custom resources labelled armature.dev/shard=<value> ('-': those without the label) (env ARMATURE_SHARD; default all)")
	c.BudgetShare = 1
	if v, err := strconv.ParseFloat(env("ARMATURE_ARM_BUDGET_SHARE", "1"), 64); err == nil {
		c.BudgetShare = v
	}
	fs.Float64Var(&c.BudgetShare, "arm-budget-share", c.BudgetShare, "share (0 to 1] of ARM's per-subscription request limits this operator uses; shards of one subscription split them (env ARMATURE_ARM_BUDGET_SHARE)")
	fs.Func("preferred-versions", "comma-separated group=version: the version to reconcile a kind in when an object does not say which version its spec was written in (env ARMATURE_PREFERRED_VERSIONS; default the storage version)", func(s string) error {
		m, err := parseVersions(s)
		c.Reconciler.PreferredVersions = m
		return err
	})
	if m, err := parseVersions(env("ARMATURE_PREFERRED_VERSIONS", "")); err == nil {
		c.Reconciler.PreferredVersions = m
	}
	fs.StringVar(&c.Kinds, "kinds", env("ARMATURE_KINDS", ""), "comma-separated patterns over group/Kind to run, e.g. 'storage.*/*,resources.*/ResourceGroup' (default: every installed kind)")
	fs.StringVar(&c.MetricsAddr, "metrics-bind-address", ":8443", "metrics address; 0 disables")
	c.InsecureMetrics = env("ARMATURE_METRICS_SECURE", "true") == "false"
	fs.Var(invertedBool{&c.InsecureMetrics}, "metrics-secure", "serve metrics over HTTPS to authenticated and authorized callers only (get on /metrics); false: plain HTTP to anyone, for local use (env ARMATURE_METRICS_SECURE)")
	fs.StringVar(&c.MetricsCertDir, "metrics-cert-dir", env("ARMATURE_METRICS_CERT_DIR", ""), "folder holding tls.crt and tls.key of the metrics endpoint (env ARMATURE_METRICS_CERT_DIR; default: self-signed at start)")
	fs.StringVar(&c.ProbeAddr, "health-probe-bind-address", ":8081", "health probe address")
	fs.StringVar(&c.PprofAddr, "pprof-bind-address", "", "address serving /debug/pprof (default off)")
	fs.BoolVar(&c.LeaderElection, "leader-elect", false, "elect a leader among replicas")
	fs.StringVar(&c.LeaderElectionID, "leader-election-id", env("ARMATURE_LEADER_ELECTION_ID", defaultLeaderElectionID), "name of the Lease replicas elect a leader with; one per shard when shards share a namespace (env ARMATURE_LEADER_ELECTION_ID)")
	fs.BoolVar(&c.Webhook, "webhook", false, "serve the admission webhook")
	fs.IntVar(&c.WebhookPort, "webhook-port", 9443, "webhook port")
	fs.StringVar(&c.CertDir, "cert-dir", "", "webhook certificate folder (tls.crt, tls.key); empty: self-signed, or --webhook-cert-secret")
	c.WebhookCerts.BindFlags(fs)
	c.DefaultCredentialNamespaces = splitList(env("ARMATURE_DEFAULT_CREDENTIAL_NAMESPACES", ""))
	fs.Func("default-credential-namespaces", "comma-separated namespaces whose objects without a credential Secret use the operator's own credential; '*' for every namespace (env ARMATURE_DEFAULT_CREDENTIAL_NAMESPACES; default none)", func(s string) error {
		c.DefaultCredentialNamespaces = splitList(s)
		return nil
	})
	fs.StringVar(&c.StateKeySecret, "state-key-secret", env("ARMATURE_STATE_KEY_SECRET", ""), "Secret holding the key that binds the operator's records to their objects: name (in the operator's namespace) or namespace/name; created when missing (env ARMATURE_STATE_KEY_SECRET; default "+DefaultStateKeySecret+")")
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Selected returns the descriptors matching Kinds.
func (c *Config) Selected(all []*descriptor.Descriptor) ([]*descriptor.Descriptor, error) {
	if c.Kinds == "" {
		return all, nil
	}
	var out []*descriptor.Descriptor
	for _, d := range all {
		for _, p := range splitList(c.Kinds) {
			ok, err := path.Match(p, d.Group+"/"+d.Kind)
			if err != nil {
				return nil, fmt.Errorf("--kinds %q: %w", p, err)
			}
			if ok {
				out = append(out, d)
				break
			}
		}
	}
	return out, nil
}

// Main is the whole of an operator command: flags (BindFlags and the
// logger's), the kubeconfig, Run until a signal; errors go to standard
// error with the command's name and exit 1.
func Main(name string, opts ...Option) {
	var cfg Config
	cfg.BindFlags(flag.CommandLine)
	zopts := zap.Options{Development: true}
	zopts.BindFlags(flag.CommandLine)
	flag.Parse()
	// Never above MaxLogLevel: client-go logs apiserver bodies (Secrets) there.
	ctrl.SetLogger(CapLevel(zap.New(zap.UseFlagOptions(&zopts)), MaxLogLevel))
	restCfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+": kubeconfig:", err)
		os.Exit(1)
	}
	if err := Run(ctrl.SetupSignalHandler(), restCfg, cfg, opts...); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Option adds to the operator what its Config does not say: kinds of the
// configurator (runtime/configurator) built on the generated ones.
type Option func(*options)

type options struct {
	compositions []func(*configurator.Registry) error
	kinds        []Kinds
}

// Kinds is a set of generated kinds beyond the ones this module ships
// (generated/apis): a generated apis package's Descriptors, AddToScheme
// and Defaults, e.g. the generated tier's (docs/tiers.md).
type Kinds struct {
	Descriptors []*descriptor.Descriptor
	AddToScheme func(*runtime.Scheme) error
	Defaults    map[schema.GroupVersionKind]map[string]any
}

// WithKinds makes the operator serve k's kinds besides generated/apis'
// (those whose CRD is installed, like the others). A kind both name is
// served once, with the first set's descriptors (generated/apis first).
func WithKinds(k Kinds) Option {
	return func(o *options) { o.kinds = append(o.kinds, k) }
}

// all is every kind the operator may serve: generated/apis' and the
// WithKinds sets', a group and kind once (the first set naming it wins).
func (o *options) all() Kinds {
	out := Kinds{Descriptors: apis.Descriptors(), AddToScheme: apis.AddToScheme, Defaults: apis.Defaults()}
	seen := map[schema.GroupKind]bool{}
	for _, d := range out.Descriptors {
		seen[schema.GroupKind{Group: d.Group, Kind: d.Kind}] = true
	}
	adds := []func(*runtime.Scheme) error{apis.AddToScheme}
	for _, k := range o.kinds {
		for _, d := range k.Descriptors {
			if !seen[schema.GroupKind{Group: d.Group, Kind: d.Kind}] {
				out.Descriptors = append(out.Descriptors, d)
			}
		}
		for _, d := range k.Descriptors {
			seen[schema.GroupKind{Group: d.Group, Kind: d.Kind}] = true
		}
		if k.AddToScheme != nil {
			adds = append(adds, k.AddToScheme)
		}
		for gvk, d := range k.Defaults {
			if _, ok := out.Defaults[gvk]; !ok {
				out.Defaults[gvk] = d
			}
		}
	}
	out.AddToScheme = func(s *runtime.Scheme) error {
		for _, add := range adds {
			if err := add(s); err != nil {
				return err
			}
		}
		return nil
	}
	return out
}

// WithComposition registers kinds on the configurator (the select/render
// layer) with register, e.g. examples/composite's Register. Without any,
// the configurator is not started. A build of an example passes its own;
// the production binary (cmd/operator) passes none.
func WithComposition(register func(*configurator.Registry) error) Option {
	return func(o *options) { o.compositions = append(o.compositions, register) }
}

const defaultLeaderElectionID = "armature-operator.armature.dev"

// ShardLabel is the label that assigns a custom resource to a shard (see
// Config.Shard).
const ShardLabel = "armature.dev/shard"

// shardSelector is the label selector of a shard: ShardLabel=shard, or
// without the label for "-".
func shardSelector(shard string) (labels.Selector, error) {
	op, vals := selection.Equals, []string{shard}
	if shard == "-" {
		op, vals = selection.DoesNotExist, nil
	}
	req, err := labels.NewRequirement(ShardLabel, op, vals)
	if err != nil {
		return nil, fmt.Errorf("--shard %q: %w", shard, err)
	}
	return labels.NewSelector().Add(*req), nil
}

// shardCache limits the cache's objects to a shard's label — the
// generated kinds (installed now or later) and Actions — but for the
// kinds the operator reads whole whatever their labels: Secrets,
// ConfigMaps, CRDs (metadata) and Namespaces.
func shardCache(o *cache.Options, shard string) error {
	sel, err := shardSelector(shard)
	if err != nil {
		return err
	}
	o.DefaultLabelSelector = sel
	o.ByObject = map[client.Object]cache.ByObject{}
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdGVK)
	for _, obj := range []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}, &corev1.Namespace{}, crd} {
		o.ByObject[obj] = cache.ByObject{Label: labels.Everything()}
	}
	return nil
}

// budget is an ARM budget at share of ARM's published limits.
func budget(share float64) *arm.Budget {
	if share <= 0 || share > 1 {
		share = 1
	}
	scale := func(r arm.Rate) arm.Rate { return arm.Rate{Burst: r.Burst * share, PerSecond: r.PerSecond * share} }
	return arm.NewBudget(map[string]arm.Rate{"reads": scale(arm.DefaultReads), "writes": scale(arm.DefaultWrites), "deletes": scale(arm.DefaultDeletes)})
}

func leaderElectionID(id string) string {
	if id == "" {
		return defaultLeaderElectionID
	}
	return id
}

// parseVersions reads "group=version,group=version".
func parseVersions(s string) (map[string]string, error) {
	var out map[string]string
	for _, kv := range splitList(s) {
		g, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(g) == "" || strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("%q is not group=version (e.g. storage.azure.armature.dev=v20230101)", kv)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[strings.TrimSpace(g)] = strings.TrimSpace(v)
	}
	return out, nil
}

func endpointLabel(conf cloud.Configuration, emulator bool) string {
	e := conf.Services[cloud.ResourceManager].Endpoint
	if emulator {
		return e + " (emulator)"
	}
	return e + " (DefaultAzureCredential)"
}

// setupActions runs Actions (runtime/action) on the installed kinds when
// the Action CRD is installed; without it the operator runs as before.
func setupActions(mgr ctrl.Manager, armClient arm.Client, creds *credentials.Credentials, selected []*descriptor.Descriptor, serving *reconciler.Serving, c Config) error {
	gvk := actionsv1alpha1.GroupVersion.WithKind("Action")
	if _, err := mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
		ctrl.Log.WithName("operator").Info("the Action CRD is not installed: Actions are not run (kubectl apply -f api/actions/crd.yaml)")
		return nil
	}
	r, err := action.SetupWithManager(mgr, armClient, selected, action.WithPollInterval(c.Reconciler.PollInterval), action.WithCredentials(creds),
		// The cache holds the reconciler's slim objects: read them whole.
		action.WithObjects(action.Objects{Reader: reconciler.CacheReader, Changed: reconciler.ReadinessChanged}),
		// Targets are watched as their kinds are served.
		action.WithTargetsLater())
	if err != nil {
		return fmt.Errorf("actions: %w", err)
	}
	serving.OnServe(r.WatchTarget, r.ForgetTarget)
	return nil
}

// stateKey is the reconciler's state key: Config.StateKey, else the
// StateKeySecret's (made when missing), else — outside a pod, with no
// namespace — none (a random key of the process).
func (c *Config) stateKey(ctx context.Context, restCfg *rest.Config) ([]byte, error) {
	if len(c.StateKey) > 0 {
		return c.StateKey, nil
	}
	key, ok := stateKeySecret(c.StateKeySecret)
	if !ok {
		ctrl.Log.WithName("operator").Info("no namespace for the state key Secret (POD_NAMESPACE, or --state-key-secret namespace/name): the key is this process's; after a restart, operations in flight are re-observed and creates that were not recorded are AzureResourceExists")
		return nil, nil
	}
	return loadStateKey(ctx, restCfg, key)
}

// installedKinds keeps the descriptors whose CRD the apiserver serves.
func installedKinds(m meta.RESTMapper, ds []*descriptor.Descriptor) []*descriptor.Descriptor {
	var out []*descriptor.Descriptor
	for _, d := range ds {
		if _, err := m.RESTMapping(schema.GroupKind{Group: d.Group, Kind: d.Kind}, d.Version); err == nil {
			out = append(out, d)
		}
	}
	return out
}
