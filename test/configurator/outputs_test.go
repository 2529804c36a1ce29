package configurator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/runtime/configurator"
)

// TestOutputs runs OutputsKind on Widgets: spec.operatorSpec writes a
// status value into a ConfigMap and a listKeys value (an extra source,
// standing for the ARM POST answer) into a Secret; each is rewritten only
// when its value changes, and the Secret's value never reaches the records.
func TestOutputs(t *testing.T) {
	ns := namespace(t, "outputs")
	w := widget(ns, "sa", "")
	w.Object["spec"].(map[string]any)["operatorSpec"] = map[string]any{
		"configMaps": []any{map[string]any{"name": "sa-endpoints", "key": "blob", "value": "status.properties.primaryEndpoints.blob"}},
		"secrets":    []any{map[string]any{"name": "sa-keys", "key": "key1", "value": "listKeys.keys[0].value"}},
	}
	create(t, w)
	setBlob := func(url string) {
		mutate(t, widgetGVK, ns, "sa", true, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, url, "status", "properties", "primaryEndpoints", "blob")
		})
	}
	setBlob("https://sa.blob.core.windows.net/")
	listKeys := func(*configurator.Resource) (map[string]any, error) {
		return map[string]any{"listKeys": map[string]any{"keys": []any{map[string]any{"keyName": "key1", "value": "s3cr3t-key"}}}}, nil
	}
	run := start(t, ns, nil, configurator.OutputsKind(widgetGVK, listKeys))

	blob := func() string {
		c := &corev1.ConfigMap{}
		if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "sa-endpoints"}, c); err != nil {
			return ""
		}
		return c.Data["blob"]
	}
	eventually(t, "the ConfigMap", func() bool { return blob() == "https://sa.blob.core.windows.net/" })
	run.settle(t)
	sec := &corev1.Secret{}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "sa-keys"}, sec); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]byte{"key1": []byte("s3cr3t-key")}, sec.Data); diff != "" {
		t.Errorf("Secret data: -want +got:\n%s", diff)
	}

	steps := []struct {
		name   string
		change func()
		writes int64
		blob   string
	}{
		{"unrelated status change", func() {
			mutate(t, widgetGVK, ns, "sa", true, func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "Succeeded", "status", "provisioningState")
			})
		}, 0, "https://sa.blob.core.windows.net/"},
		{"endpoint change", func() { setBlob("https://sa2.blob.core.windows.net/") }, 1, "https://sa2.blob.core.windows.net/"},
	}
	for _, s := range steps {
		before, selects := run.writes.Load(), run.reg.Stats().Selects
		s.change()
		eventually(t, s.name+" to be selected", func() bool { return run.reg.Stats().Selects > selects })
		run.settle(t)
		if diff := cmp.Diff(s.writes, run.writes.Load()-before); diff != "" {
			t.Errorf("%s: apiserver writes: -want +got:\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.blob, blob()); diff != "" {
			t.Errorf("%s: ConfigMap value: -want +got:\n%s", s.name, diff)
		}
	}

	b, err := json.Marshal(run.reg.Records())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "s3cr3t-key") {
		t.Errorf("the records show the Secret value: %s", b)
	}
}
