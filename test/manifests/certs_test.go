package manifests

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/hack/manifests/render"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/webhook"
	"github.com/armature-dev/armature/webhook/certs"
	"github.com/armature-dev/armature/webhook/conversion"
	"github.com/armature-dev/armature/webhook/tlstest"
)

// The StorageAccount versions: the newer has properties the older lacks.
const (
	storageGroup = "storage.azure.armature.dev"
	olderVersion = "v20230101"
	newerVersion = "v20230501"
)

// freePort returns a TCP port free on this host now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// routeToHost changes the built objects of an overlay in the one way
// envtest needs: it has no kube-proxy and no pods, so the webhook Service
// becomes an ExternalName of localhost and the webhook configurations and
// converting CRDs call it on port instead of 443. The apiserver still calls
// the Service by its name and verifies the serving certificate for
// <service>.<namespace>.svc, as in a cluster.
func routeToHost(t *testing.T, objs []*unstructured.Unstructured, port int) {
	t.Helper()
	setPort := func(o *unstructured.Unstructured, cc map[string]any) {
		svc, ok := cc["service"].(map[string]any)
		if !ok || svc["name"] != webhook.DefaultServiceName {
			t.Fatalf("%s %s calls %v, not the Service %s", o.GetKind(), o.GetName(), cc, webhook.DefaultServiceName)
		}
		svc["port"] = int64(port)
	}
	routed := 0
	for _, o := range objs {
		switch o.GetKind() {
		case "Service":
			if o.GetName() == webhook.DefaultServiceName {
				_ = unstructured.SetNestedField(o.Object, "ExternalName", "spec", "type")
				_ = unstructured.SetNestedField(o.Object, "localhost", "spec", "externalName")
				unstructured.RemoveNestedField(o.Object, "spec", "selector")
				routed++
			}
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			hooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
			for _, h := range hooks {
				setPort(o, h.(map[string]any)["clientConfig"].(map[string]any))
			}
			_ = unstructured.SetNestedSlice(o.Object, hooks, "webhooks")
		case "CustomResourceDefinition":
			cc, found, _ := unstructured.NestedMap(o.Object, "spec", "conversion", "webhook", "clientConfig")
			if found {
				setPort(o, cc)
				_ = unstructured.SetNestedMap(o.Object, cc, "spec", "conversion", "webhook", "clientConfig")
			}
		}
	}
	if routed != 1 {
		t.Fatalf("the build has %d webhook Services, want 1", routed)
	}
}

// installForReal applies every object of a build for real (server-side
// apply), Namespaces and CRDs first. uninstallWebhooks undoes what would
// disturb the other tests.
func installForReal(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	rank := func(o *unstructured.Unstructured) int {
		switch o.GetKind() {
		case "Namespace":
			return 0
		case "CustomResourceDefinition":
			return 1
		}
		return 2
	}
	for r := 0; r <= 2; r++ {
		for _, o := range objs {
			if rank(o) != r {
				continue
			}
			if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
				t.Fatalf("apply %s %s: %v", o.GetKind(), o.GetName(), err)
			}
			if r == 1 {
				if err := waitEstablished(ctx, o.GetName()); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// uninstallWebhooks removes the webhook configurations, the webhook
// Service and the certificate Secret of a build, and sets the conversion
// of its CRDs back to None.
func uninstallWebhooks(t *testing.T, objs []*unstructured.Unstructured) {
	ctx := context.Background()
	for _, o := range objs {
		switch o.GetKind() {
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "Secret", "Service":
			if o.GetKind() == "Service" && o.GetName() != webhook.DefaultServiceName {
				continue
			}
			if err := k8s.Delete(ctx, o.DeepCopy()); client.IgnoreNotFound(err) != nil {
				t.Errorf("cleanup: delete %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		case "CustomResourceDefinition":
			if _, found, _ := unstructured.NestedMap(o.Object, "spec", "conversion", "webhook"); !found {
				continue
			}
			cur := &unstructured.Unstructured{}
			cur.SetGroupVersionKind(o.GroupVersionKind())
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(o), cur); err != nil {
				t.Errorf("cleanup: %v", err)
				continue
			}
			_ = unstructured.SetNestedMap(cur.Object, map[string]any{"strategy": "None"}, "spec", "conversion")
			if err := k8s.Update(ctx, cur); err != nil {
				t.Errorf("cleanup: conversion of %s back to None: %v", o.GetName(), err)
			}
		}
	}
}

// operatorFromDeployment is the operator's Config as the Deployment of a
// build configures it (its args parsed by the operator's own flags), run
// here: its ports on this host, ARM at fa, metrics off.
func operatorFromDeployment(t *testing.T, objs []*unstructured.Unstructured, fa *fakearm.Running, webhookPort, probePort int) operator.Config {
	t.Helper()
	dep := one(t, objs, "Deployment", "armature-operator")
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cfg operator.Config
	cfg.BindFlags(fs)
	zopts := zap.Options{}
	zopts.BindFlags(fs)
	if err := fs.Parse(operatorContainer(t, dep).Args); err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "arm-ca.pem")
	if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.ARMEndpoint, cfg.ARMCAFile, cfg.ARMToken = fa.URL, ca, "t"
	cfg.Reconciler.SubscriptionID = "00000000-0000-0000-0000-0000000000cc"
	cfg.MetricsAddr = "0"
	cfg.ProbeAddr = "127.0.0.1:" + strconv.Itoa(probePort)
	cfg.WebhookPort = webhookPort
	// In a pod the namespace comes from the ServiceAccount's mount.
	cfg.WebhookCerts.Namespace = dep.GetNamespace()
	cfg.SkipNameValidation = true
	// The test namespaces have no credential Secret (an administrator's
	// opt-in, not part of the Deployment).
	cfg.DefaultCredentialNamespaces = []string{"*"}
	return cfg
}

// startFakeARM starts the ARM emulator for the operators of a test.
func startFakeARM(t *testing.T) *fakearm.Running {
	t.Helper()
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1, RetryAfter: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	return fa
}

// runOperator runs operator.Run as the operator's ServiceAccount (the
// RBAC of the build, applied for real) until the test ends.
func runOperator(t *testing.T, cfg operator.Config) {
	t.Helper()
	asOperator := rest.CopyConfig(restCfg)
	asOperator.Impersonate = rest.ImpersonationConfig{UserName: operatorUser.User, Groups: operatorUser.Groups}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- operator.Run(ctx, asOperator, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("operator.Run: %v", err)
		}
	})
}

// waitReadyz waits until the operator's /readyz answers 200, with the
// certificate check among its checks, and returns how long it took.
func waitReadyz(t *testing.T, probePort int, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	url := "http://127.0.0.1:" + strconv.Itoa(probePort) + "/readyz"
	last := ""
	for time.Since(start) < timeout {
		resp, err := http.Get(url + "?verbose")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				if !strings.Contains(string(body), "[+]"+certs.ReadyzName+" ok") {
					t.Fatalf("/readyz has no %s check:\n%s", certs.ReadyzName, body)
				}
				return time.Since(start)
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the operator is not ready after %s; last /readyz: %s", timeout, last)
	return 0
}

// certSecret reads the certificate Secret.
func certSecret(t *testing.T) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: render.Namespace, Name: render.CertificateName}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// servedCertificate dials the webhook server on port as the apiserver
// does (server name <service>.<namespace>.svc) trusting only roots, and
// returns the certificate it serves; an untrusted one is an error.
func servedCertificate(port int, roots []byte) (*x509.Certificate, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(roots) {
		return nil, fmt.Errorf("the CA bundle holds no PEM certificate")
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{
		RootCAs:    pool,
		ServerName: webhook.DefaultServiceName + "." + render.Namespace + ".svc",
	})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0], nil
}

// caBundles reads back the caBundle of every webhook of both
// configurations and of every CRD of the build converting through a
// webhook, by "<kind>/<name>".
func caBundles(t *testing.T, objs []*unstructured.Unstructured) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, o := range objs {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(o.GroupVersionKind())
		get := func() {
			if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), cur); err != nil {
				t.Fatal(err)
			}
		}
		decode := func(key, s string) {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				t.Fatalf("%s: caBundle: %v", key, err)
			}
			out[key] = b
		}
		switch o.GetKind() {
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			get()
			hooks, _, _ := unstructured.NestedSlice(cur.Object, "webhooks")
			for _, h := range hooks {
				hm := h.(map[string]any)
				ca, _, _ := unstructured.NestedString(hm, "clientConfig", "caBundle")
				decode(o.GetKind()+"/"+o.GetName()+"/"+hm["name"].(string), ca)
			}
		case "CustomResourceDefinition":
			if s, _, _ := unstructured.NestedString(o.Object, "spec", "conversion", "strategy"); s != "Webhook" {
				continue
			}
			get()
			if s, _, _ := unstructured.NestedString(cur.Object, "spec", "conversion", "strategy"); s != "Webhook" {
				t.Errorf("CRD %s converts with %q in the apiserver, want Webhook", o.GetName(), s)
			}
			ca, _, _ := unstructured.NestedString(cur.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
			decode("CRD/"+o.GetName(), ca)
		}
	}
	return out
}

// storageAccount is a StorageAccount at version with properties.
func storageAccount(ns, name, version string, props map[string]any) *unstructured.Unstructured {
	return cr(storageGroup+"/"+version, "StorageAccount", ns, name, map[string]any{
		"owner":    map[string]any{"armId": "/subscriptions/00000000-0000-0000-0000-0000000000cc/resourceGroups/rg"},
		"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}, "properties": props,
	})
}

// getAt reads a StorageAccount at version: at another version than the
// stored one, the apiserver calls the conversion webhook.
func getAt(ns, name, version string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(storageGroup + "/" + version)
	u.SetKind("StorageAccount")
	return u, k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u)
}

// TestDefaultInstallServesWebhooks applies config/default for real and
// runs the operator as its Deployment configures it (args parsed by the
// operator's flags, as its ServiceAccount): with no cert-manager, it
// becomes ready once it has issued its certificate; the CRDs read back
// from the apiserver convert with strategy Webhook and a caBundle that
// verifies the certificate the operator serves, as do both webhook
// configurations; objects are defaulted, validated and converted
// losslessly through the apiserver; re-applying the install keeps the CA.
func TestDefaultInstallServesWebhooks(t *testing.T) {
	objs := build(t, filepath.Join(configDir(), "default"))
	port, probe := freePort(t), freePort(t)
	routeToHost(t, objs, port)
	t.Cleanup(func() { uninstallWebhooks(t, objs) })
	installForReal(t, objs)
	fa := startFakeARM(t)
	cfg := operatorFromDeployment(t, objs, fa, port, probe)
	if cfg.WebhookCerts.SecretName != render.CertificateName || !cfg.Webhook || cfg.CertDir != "" {
		t.Fatalf("config/default's operator: webhook %v, certificate Secret %q, cert dir %q: want the webhook with the certificate it manages in %s",
			cfg.Webhook, cfg.WebhookCerts.SecretName, cfg.CertDir, render.CertificateName)
	}
	cfg.LeaderElectionID = "certs-default-test"
	// Metrics as the Deployment serves them (HTTPS, authenticated and
	// authorized), on a port of this host.
	if cfg.InsecureMetrics {
		t.Fatal("config/default serves metrics without authentication")
	}
	metricsAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cfg.MetricsAddr = metricsAddr
	runOperator(t, cfg)
	took := waitReadyz(t, probe, 60*time.Second)
	t.Logf("ready %s after start", took.Round(10*time.Millisecond))

	secret := certSecret(t)
	for _, k := range []string{webhook.CertFile, webhook.KeyFile, webhook.CAFile} {
		if len(secret.Data[k]) == 0 {
			t.Errorf("the Secret's %s is empty once the operator is ready", k)
		}
	}
	bundles := caBundles(t, objs)
	converting := 0
	for key, ca := range bundles {
		if strings.HasPrefix(key, "CRD/") {
			converting++
		}
		if len(ca) == 0 {
			t.Errorf("%s: empty caBundle", key)
			continue
		}
		if !bytes.Equal(ca, secret.Data[webhook.CAFile]) {
			t.Errorf("%s: the caBundle is not the Secret's ca.crt", key)
		}
		served, err := servedCertificate(port, ca)
		if err != nil {
			t.Errorf("%s: the caBundle does not verify the served certificate: %v", key, err)
			continue
		}
		if !bytes.Contains(secret.Data[webhook.CertFile], pemOf(served)) {
			t.Errorf("%s: the operator does not serve the Secret's tls.crt", key)
		}
	}
	if want := multiVersionCRDs(t, objs); converting != want || want == 0 {
		t.Errorf("%d CRDs convert through the operator with a CA, %d have several versions", converting, want)
	}
	t.Logf("%d CRDs and %d webhooks carry the CA", converting, len(bundles)-converting)

	checkWebhooksAnswer(t, "certs-default")
	// The webhook and the metrics endpoint refuse old TLS and weak suites.
	t.Run("WebhookTLS", func(t *testing.T) { tlstest.Check(t, "127.0.0.1:"+strconv.Itoa(port)) })
	t.Run("MetricsTLS", func(t *testing.T) { tlstest.Check(t, metricsAddr) })
	t.Run("Metrics", func(t *testing.T) { checkMetricsNeedAToken(t, metricsAddr) })

	// Re-applying the install (as an upgrade would) keeps the CA the
	// operator set: the manifests leave caBundle unset.
	installForReal(t, objs)
	again := caBundles(t, objs)
	for key, ca := range bundles {
		if !bytes.Equal(again[key], ca) {
			t.Errorf("%s: re-applying config/default changed the caBundle", key)
		}
	}
	if s := certSecret(t); !bytes.Equal(s.Data[webhook.CertFile], secret.Data[webhook.CertFile]) {
		t.Error("re-applying config/default changed the certificate in the Secret")
	}
}

// checkWebhooksAnswer creates a StorageAccount at the newer version in ns
// with a property the older lacks, and checks through the apiserver that
// the defaulting webhook ran, a read and a write at the older version
// convert losslessly, and the validating webhook refuses an unknown
// reconcile policy.
func checkWebhooksAnswer(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	ensureNamespace(t, ns)
	sa := storageAccount(ns, "media", newerVersion, map[string]any{"accessTier": "Hot", "enableExtendedGroups": true})
	if err := k8s.Create(ctx, sa); err != nil {
		t.Fatalf("create through the admission webhooks: %v", err)
	}
	t.Cleanup(func() { remove(t, sa) })
	if got, _, _ := unstructured.NestedString(sa.Object, "spec", "azureName"); got != sa.GetName() {
		t.Errorf("spec.azureName = %q: the defaulting webhook did not run", got)
	}
	old, err := getAt(ns, sa.GetName(), olderVersion)
	if err != nil {
		t.Fatalf("read at %s through the conversion webhook: %v", olderVersion, err)
	}
	if !strings.Contains(old.GetAnnotations()[conversion.AnnotationPreserved], "enableExtendedGroups") {
		t.Errorf("read at %s, the property only %s has is not kept (strategy None would drop it): %v", olderVersion, newerVersion, old.GetAnnotations())
	}
	// The operator writes the object too (finalizer, status): retried on
	// a conflict, each try a fresh read and write at the older version.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		old, err := getAt(ns, sa.GetName(), olderVersion)
		if err != nil {
			return err
		}
		_ = unstructured.SetNestedField(old.Object, "Cool", "spec", "properties", "accessTier")
		return k8s.Update(ctx, old)
	})
	if err != nil {
		t.Fatalf("update at %s: %v", olderVersion, err)
	}
	now, err := getAt(ns, sa.GetName(), newerVersion)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedBool(now.Object, "spec", "properties", "enableExtendedGroups"); !v {
		t.Errorf("a write at %s lost enableExtendedGroups: %v", olderVersion, now.Object["spec"])
	}
	if v, _, _ := unstructured.NestedString(now.Object, "spec", "properties", "accessTier"); v != "Cool" {
		t.Errorf("accessTier = %q after the edit at %s, want Cool", v, olderVersion)
	}
	bad := storageAccount(ns, "bad-policy", newerVersion, nil)
	bad.SetAnnotations(map[string]string{core.AnnotationPolicy: "bogus"})
	err = k8s.Create(ctx, bad)
	if err == nil || !strings.Contains(err.Error(), webhook.ValidatingWebhookName) {
		t.Errorf("an unknown reconcile policy: error %v, want the validating webhook's denial", err)
	}
}

// pemOf is the PEM of a certificate.
func pemOf(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

// TestCertificateRotation runs two replicas of config/default's operator
// with leader election and certificates valid 30 s, renewed 24 s before
// expiry (every ~6 s), with the apiserver calling the follower: the
// leader rotates (the Lease keeps its holder), the CRDs' caBundle and the
// Secret change, the follower serves each new certificate from the Secret
// within moments, and admission and conversion requests through it keep
// succeeding across the CA rotations.
func TestCertificateRotation(t *testing.T) {
	objs := build(t, filepath.Join(configDir(), "default"))
	leaderPort, followerPort := freePort(t), freePort(t)
	routeToHost(t, objs, followerPort)
	t.Cleanup(func() { uninstallWebhooks(t, objs) })
	installForReal(t, objs)
	fa := startFakeARM(t)

	const validity, renewBefore = 30 * time.Second, 24 * time.Second
	leaderProbe, followerProbe := freePort(t), freePort(t)
	leader := operatorFromDeployment(t, objs, fa, leaderPort, leaderProbe)
	leader.LeaderElectionID = "certs-rotation-test"
	leader.WebhookCerts.Validity, leader.WebhookCerts.RenewBefore = validity, renewBefore
	if !leader.LeaderElection {
		t.Fatal("config/default runs without leader election")
	}
	runOperator(t, leader)
	waitReadyz(t, leaderProbe, 60*time.Second)
	first := certSecret(t)

	holder := leaseHolder(t, leader.LeaderElectionID)
	follower := leader
	follower.WebhookPort, follower.ProbeAddr = followerPort, "127.0.0.1:"+strconv.Itoa(followerProbe)
	runOperator(t, follower)
	waitReadyz(t, followerProbe, 30*time.Second)

	ns := "certs-rotation"
	ensureNamespace(t, ns)
	sa := storageAccount(ns, "rotated", newerVersion, map[string]any{"enableExtendedGroups": true})
	if err := k8s.Create(context.Background(), sa); err != nil {
		t.Fatalf("create through the follower's admission webhooks: %v", err)
	}
	t.Cleanup(func() { remove(t, sa) })

	type rotation struct {
		serial string
		bundle int
		took   time.Duration
	}
	var rotations []rotation
	seen := map[string]bool{string(first.Data[webhook.CertFile]): true}
	crdName := "storageaccounts." + storageGroup
	crdBundles := map[string]bool{}
	calls, failures := 0, 0
	deadline := time.Now().Add(60 * time.Second)
	for len(rotations) < 2 && time.Now().Before(deadline) {
		// Admission and conversion through the follower, all the time.
		calls += 2
		if _, err := getAt(ns, sa.GetName(), olderVersion); err != nil {
			failures++
			t.Errorf("conversion during rotation: %v", err)
		}
		if err := patchTag(ns, sa.GetName(), strconv.Itoa(calls)); err != nil {
			failures++
			t.Errorf("admission during rotation: %v", err)
		}
		crd := &unstructured.Unstructured{}
		crd.SetGroupVersionKind(crdGK.WithVersion("v1"))
		if err := k8s.Get(context.Background(), client.ObjectKey{Name: crdName}, crd); err != nil {
			t.Fatal(err)
		}
		ca, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		crdBundles[ca] = true

		s := certSecret(t)
		cert := string(s.Data[webhook.CertFile])
		if seen[cert] {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		seen[cert] = true
		changed := time.Now()
		// The follower must serve the new certificate: it learns of it
		// from its watch of the Secret, not by restarting.
		var served *x509.Certificate
		var err error
		for time.Since(changed) < 5*time.Second {
			if served, err = servedCertificate(followerPort, s.Data[webhook.CAFile]); err == nil && strings.Contains(cert, string(pemOf(served))) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if served == nil || !strings.Contains(cert, string(pemOf(served))) {
			t.Fatalf("the follower does not serve the rotated certificate 5 s after the Secret changed (%v)", err)
		}
		block := pemCount(s.Data[webhook.CAFile])
		rotations = append(rotations, rotation{served.SerialNumber.Text(16), block, time.Since(changed)})
		if block != 2 {
			t.Errorf("after a rotation ca.crt holds %d CAs, want the new and the previous", block)
		}
	}
	if h := leaseHolder(t, leader.LeaderElectionID); h != holder {
		t.Errorf("the lease went from %s to %s: the follower led", holder, h)
	}
	if len(rotations) < 2 {
		t.Fatalf("%d rotations in 60 s with certificates renewed every %s", len(rotations), validity-renewBefore)
	}
	if len(crdBundles) < 3 {
		t.Errorf("the CRD's caBundle took %d values over 2 rotations, want 3", len(crdBundles))
	}
	for _, r := range rotations {
		t.Logf("rotated to serial %s…, bundle of %d CAs, served by the follower %s after the Secret changed", r.serial[:8], r.bundle, r.took.Round(time.Millisecond))
	}
	t.Logf("%d admission and conversion calls through the follower during the rotations, %d failed", calls, failures)
}

// remove deletes a custom resource the operator may hold a finalizer on,
// dropping the finalizer: its ARM side does not matter here.
func remove(t *testing.T, o *unstructured.Unstructured) {
	ctx := context.Background()
	if err := k8s.Delete(ctx, o.DeepCopy()); client.IgnoreNotFound(err) != nil {
		t.Errorf("cleanup: delete %s %s: %v", o.GetKind(), o.GetName(), err)
	}
	patch := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`))
	if err := k8s.Patch(ctx, o.DeepCopy(), patch); client.IgnoreNotFound(err) != nil {
		t.Errorf("cleanup: drop the finalizers of %s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

// leaseHolder is the holder of the leader election Lease id.
func leaseHolder(t *testing.T, id string) string {
	t.Helper()
	l := &coordinationv1.Lease{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: render.Namespace, Name: id}, l); err != nil {
		t.Fatal(err)
	}
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
		t.Fatalf("Lease %s has no holder", id)
	}
	return *l.Spec.HolderIdentity
}

// patchTag changes a StorageAccount's tags (through the admission
// webhooks).
func patchTag(ns, name, v string) error {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(storageGroup + "/" + newerVersion)
	u.SetKind("StorageAccount")
	u.SetNamespace(ns)
	u.SetName(name)
	patch := []byte(`{"spec":{"tags":{"n":"` + v + `"}}}`)
	err := k8s.Patch(context.Background(), u, client.RawPatch("application/merge-patch+json", patch))
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// pemCount counts the PEM blocks in b.
func pemCount(b []byte) int { return strings.Count(string(b), "-----BEGIN CERTIFICATE-----") }
