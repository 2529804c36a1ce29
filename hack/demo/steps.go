package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/webhook/conversion"
)

// showVersions reads the StorageAccount in its other served version: the
// apiserver calls the operator's conversion webhook, which keeps what the
// older version lacks in an annotation.
func showVersions(ctx context.Context, k8s client.Client, sa *unstructured.Unstructured) error {
	step("One kind, two versions: the StorageAccount read as storage.azure.armature.dev/v20230101 (api-version 2023-01-01)")
	old := &unstructured.Unstructured{}
	old.SetAPIVersion("storage.azure.armature.dev/v20230101")
	old.SetKind("StorageAccount")
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(sa), old); err != nil {
		return err
	}
	props, _, _ := unstructured.NestedMap(old.Object, "spec", "properties")
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Printf("  spec.properties at v20230101: %s\n", strings.Join(keys, ", "))
	fmt.Printf("  enableExtendedGroups is new in 2023-05-01; the conversion webhook kept it in %s:\n    %s\n",
		conversion.AnnotationPreserved, old.GetAnnotations()[conversion.AnnotationPreserved])
	now := get(ctx, k8s, sa)
	v, _, _ := unstructured.NestedBool(now.Object, "spec", "properties", "enableExtendedGroups")
	fmt.Printf("  read again at v20230501: spec.properties.enableExtendedGroups = %v (nothing lost)\n", v)
	return nil
}

// runAction rotates key1 of the StorageAccount with an Action, after a
// refused one, and shows the single POST and the Secret it filled.
func runAction(ctx context.Context, k8s client.Client, fa *fakearm.Running, ns string) error {
	step("An Action: regenerateKey on the StorageAccount, sent once, the new keys kept in a Secret")
	action := func(name, act string, params map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "actions.azure.armature.dev/v1alpha1", "kind": "Action",
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec": map[string]any{"target": map[string]any{"kind": "StorageAccount", "name": "media"},
				"action": act, "parameters": params, "resultSecret": map[string]any{"name": "media-keys"}},
		}}
	}
	if err := k8s.Create(ctx, action("rotate-typo", "regenerateKeys", map[string]any{"keyName": "key1"})); err != nil {
		fmt.Printf("  a misspelt action is refused at admission:\n    %v\n", err)
	}
	if err := k8s.Create(ctx, action("rotate-nobody", "regenerateKey", map[string]any{})); err != nil {
		fmt.Printf("  so is a missing parameter:\n    %v\n", err)
	}
	fa.ResetJournal()
	a := action("rotate-key1", "regenerateKey", map[string]any{"keyName": "key1"})
	if err := k8s.Create(ctx, a); err != nil {
		return err
	}
	fmt.Println("  created Action/rotate-key1 (regenerateKey, keyName key1)")
	phase := ""
	if err := waitFor(ctx, 30*time.Second, func() bool {
		u := get(ctx, k8s, a)
		p, _, _ := unstructured.NestedString(u.Object, "status", "phase")
		if p != phase {
			fmt.Printf("  phase: %s\n", p)
			phase = p
		}
		return p == "Succeeded" || p == "Failed"
	}); err != nil {
		return fmt.Errorf("Action rotate-key1: %w", err)
	}
	for _, e := range fa.Journal() {
		if e.Method == "POST" {
			fmt.Printf("  ARM ← POST   %s → %d  %s\n", short(e.Path), e.Status, e.Body)
		}
	}
	sec := &corev1.Secret{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "media-keys"}, sec); err != nil {
		return err
	}
	var names []string
	for k, v := range sec.Data {
		names = append(names, fmt.Sprintf("%s (%d bytes)", k, len(v)))
	}
	sort.Strings(names)
	fmt.Printf("  Secret/media-keys holds: %s — values never in the Action's status, events or logs\n", strings.Join(names, ", "))
	return nil
}

// demoObjects are the resources the demo applies, owners first: a resource
// group, a storage account (objs[1]) with a blob service and a container,
// a key vault and a virtual network (objs[5]).
func demoObjects(ns string) []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
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
}

// applyAll creates objs, children first, and shows them converge; it
// returns when each became Ready.
func applyAll(ctx context.Context, k8s client.Client, objs []*unstructured.Unstructured) (map[string]time.Duration, error) {
	step("Applying %d resources (children first: they wait for their owners)", len(objs))
	for i := len(objs) - 1; i >= 0; i-- {
		if err := k8s.Create(ctx, objs[i]); err != nil {
			return nil, fmt.Errorf("create %s: %w", objs[i].GetName(), err)
		}
		fmt.Printf("  created %s/%s\n", objs[i].GetKind(), objs[i].GetName())
	}
	return watchTable(ctx, k8s, objs, 60*time.Second)
}

// editWritable edits the StorageAccount's access tier and prints the ARM
// requests it caused.
func editWritable(ctx context.Context, k8s client.Client, fa *fakearm.Running, sa *unstructured.Unstructured) error {
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
	return nil
}

// refuseCreateOnly attempts create-only edits of the StorageAccount and the
// VirtualNetwork and an edit of an operator field, and prints how the
// apiserver refuses them.
func refuseCreateOnly(ctx context.Context, k8s client.Client, sa, vnet *unstructured.Unstructured) {
	step("Attempting a create-only edit: spec.location westeurope → northeurope")
	refuseEdit(ctx, k8s, sa, "northeurope", "spec", "location")
	fmt.Println("  a VirtualNetwork's location too (Network's PATCH takes only tags; the ARM-wide rule makes location create-only):")
	refuseEdit(ctx, k8s, vnet, "northeurope", "spec", "location")

	cur := get(ctx, k8s, sa)
	_ = unstructured.SetNestedField(cur.Object, "teamamedia02", "spec", "azureName")
	if err := k8s.Update(ctx, cur); err != nil {
		fmt.Printf("  and spec.azureName (an operator field, checked by the webhook):\n    %v\n", err)
	} else {
		fmt.Println("  azureName change unexpectedly accepted")
	}
}

// deleteAll deletes objs, children first, and prints the DELETEs ARM
// received.
func deleteAll(ctx context.Context, k8s client.Client, fa *fakearm.Running, objs []*unstructured.Unstructured) error {
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
	return nil
}

// runComposition creates an AppStack (examples/composite) and its resource
// group, and prints the AppStack's summary until it is ready.
func runComposition(ctx context.Context, k8s client.Client, ns string) error {
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
	return nil
}

// summary prints the ARM requests since the deletion, when each object
// became Ready and the demo's duration.
func summary(fa *fakearm.Running, objs []*unstructured.Unstructured, readyAt map[string]time.Duration, started time.Time) {
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
}
