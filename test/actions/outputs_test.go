package actions_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	actionsv1alpha1 "github.com/armature-dev/armature/api/actions/v1alpha1"
)

// TestOutputsAfterRotation: a storage account hands its first key to a
// Secret (spec.operatorSpec); an Action regenerates that key; the Secret
// holds the new key soon after, not at the next sync period (an hour
// here): the Action marks its target for a refresh (armature.dev/refresh).
func TestOutputsAfterRotation(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns)
	sa := storageAccount(ns, "media", "media-rg")
	_ = unstructured.SetNestedField(sa.Object, map[string]any{
		"secrets": []any{map[string]any{"name": "media-out", "key": "key1", "value": "listKeys.keys[0].value"}},
	}, "spec", "operatorSpec")
	create(t, resourceGroup(ns, "media-rg"), sa)
	id := waitReady(t, sa)
	output := func() string {
		var s corev1.Secret
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "media-out"}, &s); err != nil {
			return ""
		}
		return string(s.Data["key1"])
	}
	eventually(t, 30*time.Second, "the output Secret holds key1", func() (bool, string) {
		return output() != "" && output() == armKeys(t, fa, id)["key1"], "output " + output()
	})
	before := output()

	create(t, newAction(ns, "rotate", actionsv1alpha1.ActionSpec{
		Target: storageTarget("media"), Action: "regenerateKey", Parameters: params(`{"keyName":"key1"}`),
	}))
	waitPhase(t, ns, "rotate", actionsv1alpha1.PhaseSucceeded)
	rotated := armKeys(t, fa, id)["key1"]
	if rotated == before {
		t.Fatal("regenerateKey did not change key1 in ARM")
	}
	start := time.Now()
	eventually(t, 30*time.Second, "the output Secret follows the rotation", func() (bool, string) {
		return output() == rotated, "output still the old key"
	})
	t.Logf("the output Secret had the new key %v after the Action succeeded", time.Since(start).Round(time.Millisecond))
}
