// Command demo is what `make demo` runs after generating: a real
// kube-apiserver and etcd (envtest, built by hack/setup-envtest.sh), the
// local ARM emulator and the operator, all in this process tree; it applies
// resources, shows them converge, edits a writable field, attempts a
// create-only edit, reads an object in its other served version, runs an
// Action, deletes, runs a composition, prints a summary, and stops
// everything (also on Ctrl-C).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/armature-dev/armature/examples/composite"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
)

const subscription = "00000000-0000-0000-0000-00000000d3e0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "\ndemo: interrupted; the operator, the emulator and the control plane are stopped")
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func step(format string, args ...any) {
	fmt.Printf("\n\033[1m== "+format+"\033[0m\n", args...)
}

func run(ctx context.Context) error {
	ctrl.SetLogger(zap.New(zap.WriteTo(discard{})))
	started := time.Now()

	step("Starting a real kube-apiserver and etcd (envtest) with the %d generated CRDs, the Action CRD and the webhooks", len(crdFiles()))
	restCfg, wio, stopEnv, err := startControlPlane()
	if err != nil {
		return err
	}
	defer stopEnv()
	fmt.Printf("  apiserver at %s (%s)\n", restCfg.Host, time.Since(started).Round(time.Millisecond))

	step("Starting the local ARM emulator (fakearm)")
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 2, RetryAfter: -1}})
	if err != nil {
		return err
	}
	defer fa.Close()
	ca := filepath.Join(os.TempDir(), fmt.Sprintf("armature-demo-ca-%d.pem", os.Getpid()))
	if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
		return err
	}
	defer os.Remove(ca)
	fmt.Printf("  ARM at %s\n", fa.URL)

	step("Starting the operator (one generic reconciler per kind, the Action reconciler, admission and conversion webhooks)")
	opCtx, opCancel := context.WithCancel(ctx)
	opDone := make(chan error, 1)
	go func() {
		opDone <- operator.Run(opCtx, restCfg, operator.Config{
			Reconciler:  reconciler.Config{SubscriptionID: subscription, PollInterval: 300 * time.Millisecond},
			ARMEndpoint: fa.URL, ARMCAFile: ca, ARMToken: "demo",
			// The demo's namespaces have no credential Secret: the emulator
			// accepts the operator's own token everywhere.
			DefaultCredentialNamespaces: []string{"*"},
			MetricsAddr:                 "0", ProbeAddr: "0",
			Webhook: true, WebhookPort: wio.LocalServingPort, CertDir: wio.LocalServingCertDir,
		}, operator.WithComposition(composite.Register))
	}()
	defer func() {
		opCancel()
		select { // waitForWebhook may have received the operator's end already
		case <-opDone:
		case <-time.After(10 * time.Second):
		}
	}()
	if err := waitForWebhook(ctx, wio, opDone); err != nil {
		return err
	}

	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = apis.AddToScheme(scheme)
	k8s, err := client.New(restCfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	ns := "demo"
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}

	objs := []*unstructured.Unstructured{
		obj("resources.azure.armature.dev/v20240301", "ResourceGroup", ns, "team-a", map[string]any{"location": "westeurope"}),
		obj("storage.azure.armature.dev/v20230501", "StorageAccount", ns, "media", map[string]any{
			"azureName": "teamamedia01", "owner": map[string]any{"name": "team-a"}, "location": "westeurope",
			"kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
			"properties": map[string]any{"accessTier": "Hot", "minimumTlsVersion": "TLS1_2", "enableExtendedGroups": true},
		}),
		obj("storage.azure.armature.dev/v20230501", "StorageAccountsBlobService", ns, "media-blob", map[string]any{"owner": map[string]any{"name": "media"}}),
		obj("storage.azure.armature.dev/v20230501", "StorageAccountsBlobServicesContainer", ns, "images", map[string]any{
			"owner": map[string]any{"name": "media-blob"}, "properties": map[string]any{"publicAccess": "None"},
		}),
		obj("keyvault.azure.armature.dev/v20230701", "Vault", ns, "team-a-kv", map[string]any{
			"owner": map[string]any{"name": "team-a"}, "location": "westeurope",
			"properties": map[string]any{"tenantId": "00000000-0000-0000-0000-0000000000t1", "sku": map[string]any{"family": "A", "name": "standard"}, "accessPolicies": []any{}},
		}),
		obj("network.azure.armature.dev/v20240101", "VirtualNetwork", ns, "team-a-vnet", map[string]any{
			"owner": map[string]any{"name": "team-a"}, "location": "westeurope",
			"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}},
		}),
	}
	step("Applying %d resources (children first: they wait for their owners)", len(objs))
	for i := len(objs) - 1; i >= 0; i-- {
		if err := k8s.Create(ctx, objs[i]); err != nil {
			return fmt.Errorf("create %s: %w", objs[i].GetName(), err)
		}
		fmt.Printf("  created %s/%s\n", objs[i].GetKind(), objs[i].GetName())
	}
	readyAt, err := watchTable(ctx, k8s, objs, 60*time.Second)
	if err != nil {
		return err
	}

	sa := objs[1]
	saID := "/subscriptions/" + subscription + "/resourceGroups/team-a/providers/Microsoft.Storage/storageAccounts/teamamedia01"
	step("Editing a writable field: spec.properties.accessTier Hot → Cool")
	fa.ResetJournal()
	cur := get(ctx, k8s, sa)
	_ = unstructured.SetNestedField(cur.Object, "Cool", "spec", "properties", "accessTier")
	if err := k8s.Update(ctx, cur); err != nil {
		return err
	}
	if err := waitFor(ctx, 20*time.Second, func() bool {
		tier, _, _ := unstructured.NestedString(fa.Resource(saID), "properties", "accessTier")
		return tier == "Cool"
	}); err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond)
	for _, e := range fa.Journal() {
		if strings.EqualFold(e.Path, saID) {
			fmt.Printf("  ARM ← %-6s %s → %d  %s\n", e.Method, short(e.Path), e.Status, e.Body)
		}
	}

	step("Attempting a create-only edit: spec.location westeurope → northeurope")
	refuseEdit(ctx, k8s, sa, "northeurope", "spec", "location")
	fmt.Println("  a VirtualNetwork's location too (Network's PATCH takes only tags; the ARM-wide rule makes location create-only):")
	refuseEdit(ctx, k8s, objs[5], "northeurope", "spec", "location")

	cur = get(ctx, k8s, sa)
	_ = unstructured.SetNestedField(cur.Object, "teamamedia02", "spec", "azureName")
	if err := k8s.Update(ctx, cur); err != nil {
		fmt.Printf("  and spec.azureName (an operator field, checked by the webhook):\n    %v\n", err)
	} else {
		fmt.Println("  azureName change unexpectedly accepted")
	}

	if err := showVersions(ctx, k8s, sa); err != nil {
		return err
	}
	if err := runAction(ctx, k8s, fa, ns); err != nil {
		return err
	}

	step("Deleting everything (children first; each deletion is a DELETE in ARM)")
	fa.ResetJournal()
	for _, o := range []*unstructured.Unstructured{objs[3], objs[2], objs[4], objs[5], objs[1], objs[0]} {
		if err := k8s.Delete(ctx, get(ctx, k8s, o)); err != nil {
			return err
		}
		if err := waitFor(ctx, 30*time.Second, func() bool {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(o.GroupVersionKind())
			return k8s.Get(ctx, client.ObjectKeyFromObject(o), u) != nil
		}); err != nil {
			return fmt.Errorf("%s/%s not deleted: %w", o.GetKind(), o.GetName(), err)
		}
		fmt.Printf("  %s/%s gone\n", o.GetKind(), o.GetName())
	}
	for _, e := range fa.Journal() {
		if e.Method == "DELETE" {
			fmt.Printf("  ARM ← DELETE %s → %d\n", short(e.Path), e.Status)
		}
	}
	fmt.Printf("  resources left in ARM: %d\n", len(fa.ResourceIDs()))

	step("A composition: an AppStack (examples/composite) declares a storage account, its blob service and a container")
	stack := obj("examples.armature.dev/v1alpha1", "AppStack", ns, "shop", map[string]any{"resourceGroup": "shop-rg", "storageAccountName": "shopdata01"})
	shopRG := obj("resources.azure.armature.dev/v20240301", "ResourceGroup", ns, "shop-rg", map[string]any{"location": "westeurope"})
	for _, o := range []*unstructured.Unstructured{shopRG, stack} {
		if err := k8s.Create(ctx, o); err != nil {
			return err
		}
	}
	last := ""
	if err := waitFor(ctx, 60*time.Second, func() bool {
		u := get(ctx, k8s, stack)
		summary, _, _ := unstructured.NestedString(u.Object, "status", "summary")
		isReady, _, _ := unstructured.NestedBool(u.Object, "status", "ready")
		if summary != last && summary != "" {
			fmt.Printf("  AppStack/shop: %s\n", summary)
			last = summary
		}
		return isReady
	}); err != nil {
		return fmt.Errorf("AppStack: %w", err)
	}

	step("Summary")
	counts := fa.Counts()
	var keys []string
	for k := range counts {
		if strings.Contains(k, " ") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	fmt.Print("  ARM requests of the deletion and the composition, by verb and status:")
	for _, k := range keys {
		fmt.Printf(" %s×%d", k, counts[k])
	}
	fmt.Println()
	for _, o := range objs {
		fmt.Printf("  %-44s Ready after %s\n", o.GetKind()+"/"+o.GetName(), readyAt[o.GetName()].Round(10*time.Millisecond))
	}
	fmt.Printf("  whole demo: %s; stopping the operator, the emulator and the control plane\n", time.Since(started).Round(100*time.Millisecond))
	return nil
}

func obj(apiVersion, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
}

// refuseEdit sets a create-only field of o to value and prints how the
// apiserver refuses it.
func refuseEdit(ctx context.Context, k client.Client, o *unstructured.Unstructured, value string, fields ...string) {
	cur := get(ctx, k, o)
	_ = unstructured.SetNestedField(cur.Object, value, fields...)
	if err := k.Update(ctx, cur); err != nil {
		fmt.Printf("  refused by the apiserver before anything reached Azure:\n    %v\n", err)
	} else {
		fmt.Printf("  %s %s: unexpectedly accepted\n", o.GetKind(), strings.Join(fields, "."))
	}
}

func get(ctx context.Context, k client.Client, o *unstructured.Unstructured) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.GroupVersionKind())
	_ = k.Get(ctx, client.ObjectKeyFromObject(o), u)
	return u
}

func ready(u *unstructured.Unstructured) (string, string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			s, _ := m["status"].(string)
			r, _ := m["reason"].(string)
			return s, r
		}
	}
	return "", ""
}

// watchTable prints a table of the objects whenever it changes, until all
// are Ready; it returns when each became Ready.
func watchTable(ctx context.Context, k client.Client, objs []*unstructured.Unstructured, timeout time.Duration) (map[string]time.Duration, error) {
	start := time.Now()
	at := map[string]time.Duration{}
	last := ""
	for {
		var b strings.Builder
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  KIND\tNAME\tREADY\tREASON\tAZURE ID")
		all := true
		for _, o := range objs {
			u := get(ctx, k, o)
			s, r := ready(u)
			id, _, _ := unstructured.NestedString(u.Object, "status", "id")
			if s == "True" {
				if _, ok := at[o.GetName()]; !ok {
					at[o.GetName()] = time.Since(start)
				}
			} else {
				all = false
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", o.GetKind(), o.GetName(), dash(s), dash(r), dash(short(id)))
		}
		_ = tw.Flush()
		if b.String() != last {
			fmt.Printf("  t=%-5s\n%s", time.Since(start).Round(100*time.Millisecond), b.String())
			last = b.String()
		}
		if all {
			return at, nil
		}
		if time.Since(start) > timeout {
			return at, fmt.Errorf("not all Ready within %s", timeout)
		}
		select {
		case <-ctx.Done():
			return at, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func waitFor(ctx context.Context, timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

func short(id string) string {
	if i := strings.Index(id, "/resourceGroups/"); i >= 0 {
		return "…" + id[i:]
	}
	return id
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
