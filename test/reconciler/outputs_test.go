package reconciler_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/runtime/reconciler"
)

// TestOutputsForWorkloads: a StorageAccount's blob endpoint reaches a
// ConfigMap and its first key (listKeys, through the emulator) a Secret,
// owned by the account; a second account naming the same key is refused
// with OutputConflict.
func TestOutputsForWorkloads(t *testing.T) {
	fa := startARM(t, 2)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	rg := resourceGroup(ns, "team-out")
	sa := storageAccount(ns, "media02", "team-out")
	_ = unstructured.SetNestedField(sa.Object, map[string]any{
		"configMaps": []any{map[string]any{"name": "media", "key": "blob", "value": "status.properties.primaryEndpoints.blob"}},
		"secrets":    []any{map[string]any{"name": "media-keys", "key": "key", "value": "listKeys.keys[0].value"}},
	}, "spec", "operatorSpec")
	create(t, rg, sa)
	waitReady(t, rg, sa)

	var cm corev1.ConfigMap
	eventually(t, 20*time.Second, "ConfigMap media holds the blob endpoint", func() (bool, string) {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "media"}, &cm)
		return err == nil && strings.Contains(cm.Data["blob"], "media02"), cm.Data["blob"]
	})
	if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].Name != "media02" {
		t.Errorf("ConfigMap owners %v, want the account", cm.OwnerReferences)
	}
	var s corev1.Secret
	eventually(t, 20*time.Second, "Secret media-keys holds the key", func() (bool, string) {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "media-keys"}, &s)
		return err == nil && len(s.Data["key"]) > 0, ""
	})
	// The key is in the Secret only: not in the ConfigMap, status or annotations.
	key := string(s.Data["key"])
	got := get(t, sa)
	for where, v := range map[string]any{"status": got.Object["status"], "annotations": got.GetAnnotations(), "configmap": cm.Data} {
		if b, _ := json.Marshal(v); strings.Contains(string(b), key) {
			t.Errorf("the account key appears in %s", where)
		}
	}

	// A second account claiming the same ConfigMap key is refused.
	other := storageAccount(ns, "media03", "team-out")
	_ = unstructured.SetNestedField(other.Object, map[string]any{
		"configMaps": []any{map[string]any{"name": "media", "key": "blob", "value": "status.properties.primaryEndpoints.blob"}},
	}, "spec", "operatorSpec")
	create(t, other)
	eventually(t, 30*time.Second, "the second writer of a key is refused", func() (bool, string) {
		s, r, m := readyReason(get(t, other))
		return s == "False" && r == "OutputConflict", s + " " + r + " " + m
	})
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "media"}, &cm); err != nil || !strings.Contains(cm.Data["blob"], "media02") {
		t.Errorf("the first writer's value was overwritten: %v %v", cm.Data, err)
	}
}
