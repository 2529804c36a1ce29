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
