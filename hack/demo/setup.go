package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/examples/composite"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
	"github.com/armature-dev/armature/webhook"
	"github.com/armature-dev/armature/webhook/conversion"
)

// crdFiles are the CRDs the demo installs: every generated kind, the
// Action kind and the example composition.
func crdFiles() []string {
	root := envtestutil.RepoRoot()
	files, _ := filepath.Glob(filepath.Join(root, "generated", "crds", "*.yaml"))
	return append(files, filepath.Join(root, "api", "actions", "crd.yaml"), filepath.Join(root, "examples", "composite", "crd.yaml"))
}

// startControlPlane starts kube-apiserver and etcd, installs the CRDs
// (those with several versions converting through the operator's
// /convert) and the admission webhook configurations, all pointing at the
// port the operator will serve its webhook on.
func startControlPlane() (*rest.Config, *envtest.WebhookInstallOptions, func(), error) {
	assets, err := envtestutil.Assets()
	if err != nil {
		return nil, nil, nil, err
	}
	wio := &envtest.WebhookInstallOptions{LocalServingHost: "127.0.0.1"}
	if err := wio.PrepWithoutInstalling(); err != nil {
		return nil, nil, nil, err
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	cfg, err := env.Start()
	if err != nil {
		_ = wio.Cleanup()
		return nil, nil, nil, fmt.Errorf("start envtest with %s: %w", assets, err)
	}
	stop := func() { _ = env.Stop(); _ = wio.Cleanup() }
	cfg.QPS, cfg.Burst = 500, 1000
	base := "https://127.0.0.1:" + strconv.Itoa(wio.LocalServingPort)
	convertURL := base + conversion.Path
	var crds []*apiextv1.CustomResourceDefinition
	for _, f := range crdFiles() {
		raw, err := os.ReadFile(f)
		if err != nil {
			stop()
			return nil, nil, nil, err
		}
		crd := &apiextv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(raw, crd); err != nil {
			stop()
			return nil, nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		conversion.Enable(crd, apiextv1.WebhookClientConfig{URL: &convertURL, CABundle: wio.LocalServingCAData})
		crds = append(crds, crd)
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		stop()
		return nil, nil, nil, err
	}
	s := runtime.NewScheme()
	_ = admissionregistrationv1.AddToScheme(s)
	k, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		stop()
		return nil, nil, nil, err
	}
	ds := apis.Descriptors()
	opts := []webhook.ConfigOption{webhook.WithURL(base), webhook.WithCABundle(wio.LocalServingCAData)}
	v := webhook.ValidatingWebhookConfiguration(ds, opts...)
	v.Webhooks = append(v.Webhooks, webhook.ActionValidatingWebhook(opts...))
	m := webhook.MutatingWebhookConfiguration(ds, opts...)
	for _, o := range []client.Object{v, m} {
		o.SetResourceVersion("")
		if err := k.Create(context.Background(), o); err != nil {
			stop()
			return nil, nil, nil, err
		}
	}
	return cfg, wio, stop, nil
}

// waitForWebhook returns once the operator's webhook answers TLS on its
// port (the configurations fail closed until then).
func waitForWebhook(ctx context.Context, wio *envtest.WebhookInstallOptions, opDone <-chan error) error {
	addr := net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort))
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-opDone:
			return fmt.Errorf("the operator stopped: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a readiness probe
		if err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("the operator's webhook did not start within 30s")
}

// startARM starts the ARM emulator and writes its CA where the operator
// reads it (--arm-ca-file); stop removes the file and stops the emulator.
func startARM() (fa *fakearm.Running, ca string, stop func(), err error) {
	fa, err = fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 2, RetryAfter: -1}})
	if err != nil {
		return nil, "", nil, err
	}
	ca = filepath.Join(os.TempDir(), fmt.Sprintf("armature-demo-ca-%d.pem", os.Getpid()))
	if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
		fa.Close()
		return nil, "", nil, err
	}
	return fa, ca, func() {
		os.Remove(ca)
		fa.Close()
	}, nil
}

// startOperator runs the operator (operator.Run, with the example
// composition) against the emulator at armURL and returns once its webhook
// serves. stop, returned also with an error, stops the operator and waits
// for it (10s at most).
func startOperator(ctx context.Context, restCfg *rest.Config, wio *envtest.WebhookInstallOptions, armURL, ca string) (stop func(), err error) {
	opCtx, opCancel := context.WithCancel(ctx)
	opDone := make(chan error, 1)
	go func() {
		opDone <- operator.Run(opCtx, restCfg, operator.Config{
			Reconciler:  reconciler.Config{SubscriptionID: subscription, PollInterval: 300 * time.Millisecond},
			ARMEndpoint: armURL, ARMCAFile: ca, ARMToken: "demo",
			// The demo's namespaces have no credential Secret: the emulator
			// accepts the operator's own token everywhere.
			DefaultCredentialNamespaces: []string{"*"},
			MetricsAddr:                 "0", ProbeAddr: "0",
			Webhook: true, WebhookPort: wio.LocalServingPort, CertDir: wio.LocalServingCertDir,
		}, operator.WithComposition(composite.Register))
	}()
	stop = func() {
		opCancel()
		select { // waitForWebhook may have received the operator's end already
		case <-opDone:
		case <-time.After(10 * time.Second):
		}
	}
	return stop, waitForWebhook(ctx, wio, opDone)
}

// newClient is a client of the demo's kinds; it creates namespace ns.
func newClient(ctx context.Context, restCfg *rest.Config, ns string) (client.Client, error) {
	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = apis.AddToScheme(scheme)
	k8s, err := client.New(restCfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return nil, err
	}
	return k8s, nil
}
