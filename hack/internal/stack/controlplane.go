package stack

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/test/envtestutil"
	"github.com/armature-dev/armature/webhook"
	"github.com/armature-dev/armature/webhook/conversion"
)

// CRDFiles are the CRDs a local installation has: every generated kind,
// the Action kind and the example composition (examples/composite).
func CRDFiles() []string {
	root := envtestutil.RepoRoot()
	files, _ := filepath.Glob(filepath.Join(root, "generated", "crds", "*.yaml"))
	return append(files, filepath.Join(root, "api", "actions", "crd.yaml"), filepath.Join(root, "examples", "composite", "crd.yaml"))
}

// ControlPlaneOptions configure StartControlPlane.
type ControlPlaneOptions struct {
	// APIServerLog and EtcdLog receive the standard output and error of
	// kube-apiserver and etcd. Default: discarded.
	APIServerLog, EtcdLog io.Writer
}

// ControlPlane is a running kube-apiserver and etcd with the CRDs and the
// webhook configurations installed.
type ControlPlane struct {
	// Config is an administrator's (group system:masters) client
	// configuration.
	Config *rest.Config
	// KubeConfig is Config as a kubeconfig file.
	KubeConfig []byte
	// Assets is the folder of the kube-apiserver, etcd (and kubectl, when
	// hack/setup-envtest.sh built it) binaries.
	Assets string
	// Webhook is where the operator must serve its webhook: the port, the
	// folder of the serving certificate and its CA, which the CRDs and the
	// webhook configurations trust.
	Webhook *envtest.WebhookInstallOptions

	env *envtest.Environment
}

// Stop stops kube-apiserver and etcd and removes the webhook certificate.
// envtest removes the folders it made for them.
func (c *ControlPlane) Stop() {
	_ = c.env.Stop()
	_ = c.Webhook.Cleanup()
}

// StartControlPlane starts kube-apiserver and etcd, installs the CRDs of
// CRDFiles (those with several versions converting through the operator's
// /convert) and the admission webhook configurations, all pointing at
// the port in ControlPlane.Webhook.
func StartControlPlane(opts ControlPlaneOptions) (*ControlPlane, error) {
	assets, err := envtestutil.Assets()
	if err != nil {
		return nil, err
	}
	wio := &envtest.WebhookInstallOptions{LocalServingHost: "127.0.0.1"}
	if err := wio.PrepWithoutInstalling(); err != nil {
		return nil, err
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	env.ControlPlane.GetAPIServer().Out, env.ControlPlane.GetAPIServer().Err = opts.APIServerLog, opts.APIServerLog
	if opts.EtcdLog != nil {
		env.ControlPlane.Etcd = &envtest.Etcd{Out: opts.EtcdLog, Err: opts.EtcdLog}
	}
	cfg, err := env.Start()
	if err != nil {
		_ = wio.Cleanup()
		return nil, fmt.Errorf("start envtest with %s: %w", assets, err)
	}
	cp := &ControlPlane{Config: cfg, KubeConfig: env.KubeConfig, Assets: assets, Webhook: wio, env: env}
	cfg.QPS, cfg.Burst = 500, 1000
	if err := cp.install(); err != nil {
		cp.Stop()
		return nil, err
	}
	return cp, nil
}

// install installs the CRDs and the webhook configurations.
func (c *ControlPlane) install() error {
	base := "https://127.0.0.1:" + strconv.Itoa(c.Webhook.LocalServingPort)
	convertURL := base + conversion.Path
	var crds []*apiextv1.CustomResourceDefinition
	for _, f := range CRDFiles() {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		crd := &apiextv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(raw, crd); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		conversion.Enable(crd, apiextv1.WebhookClientConfig{URL: &convertURL, CABundle: c.Webhook.LocalServingCAData})
		crds = append(crds, crd)
	}
	if _, err := envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		return err
	}
	s := runtime.NewScheme()
	_ = admissionregistrationv1.AddToScheme(s)
	k, err := client.New(c.Config, client.Options{Scheme: s})
	if err != nil {
		return err
	}
	ds := apis.Descriptors()
	opts := []webhook.ConfigOption{webhook.WithURL(base), webhook.WithCABundle(c.Webhook.LocalServingCAData)}
	v := webhook.ValidatingWebhookConfiguration(ds, opts...)
	v.Webhooks = append(v.Webhooks, webhook.ActionValidatingWebhook(opts...))
	m := webhook.MutatingWebhookConfiguration(ds, opts...)
	for _, o := range []client.Object{v, m} {
		o.SetResourceVersion("")
		if err := k.Create(context.Background(), o); err != nil {
			return err
		}
	}
	return nil
}
