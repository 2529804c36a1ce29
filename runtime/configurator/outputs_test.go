package configurator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func account() *Resource {
	return NewResource(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "storage.azure.armature.dev/v20230501", "kind": "StorageAccount",
		"metadata": map[string]any{"name": "sa", "namespace": "ns"},
		"spec":     map[string]any{"location": "westeurope"},
		"status": map[string]any{
			"properties": map[string]any{"primaryEndpoints": map[string]any{"blob": "https://sa.blob/"}},
			"sku":        map[string]any{"name": "Standard_LRS"},
		},
	}})
}

func TestOperatorSpecValues(t *testing.T) {
	listKeys := map[string]any{"listKeys": map[string]any{"keys": []any{map[string]any{"value": "k1"}}}}
	cases := map[string]struct {
		reason string
		spec   map[string]any
		extra  map[string]any
		want   Outputs
		err    string
	}{
		"None": {
			reason: "no operatorSpec, nothing to write",
			spec:   map[string]any{},
		},
		"ConfigMapValues": {
			reason: "strings as they are, objects as JSON, two keys of one ConfigMap together",
			spec: map[string]any{"operatorSpec": map[string]any{"configMaps": []any{
				map[string]any{"name": "endpoints", "key": "blob", "value": "status.properties.primaryEndpoints.blob"},
				map[string]any{"name": "endpoints", "key": "sku", "value": "status.sku"},
			}}},
			want: Outputs{ConfigMaps: map[string]map[string]string{"endpoints": {"blob": "https://sa.blob/", "sku": `{"name":"Standard_LRS"}`}}},
		},
		"SecretFromExtraSource": {
			reason: "a path whose first field names an extra source reads it (an ARM listKeys answer)",
			spec: map[string]any{"operatorSpec": map[string]any{"secrets": []any{
				map[string]any{"name": "keys", "key": "key1", "value": "listKeys.keys[0].value"},
			}}},
			extra: listKeys,
			want:  Outputs{Secrets: map[string]map[string]SecretValue{"keys": {"key1": "k1"}}},
		},
		"Missing": {
			reason: "a value not there yet is listed and left out; its ConfigMap is not declared",
			spec: map[string]any{"operatorSpec": map[string]any{"configMaps": []any{
				map[string]any{"name": "endpoints", "key": "dfs", "value": "status.properties.primaryEndpoints.dfs"},
			}}},
			want: Outputs{Missing: []string{"configMaps/endpoints/dfs: status.properties.primaryEndpoints.dfs"}},
		},
		"Twice": {
			reason: "two values for one key is a user error",
			spec: map[string]any{"operatorSpec": map[string]any{"configMaps": []any{
				map[string]any{"name": "e", "key": "k", "value": "spec.location"},
				map[string]any{"name": "e", "key": "k", "value": "spec.location"},
			}}},
			err: "configMaps/e/k: written twice",
		},
		"BadPath": {
			reason: "a malformed path is reported with its output",
			spec: map[string]any{"operatorSpec": map[string]any{"configMaps": []any{
				map[string]any{"name": "e", "key": "k", "value": "spec..location"},
			}}},
			err: `configMaps/e/k: path "spec..location": empty field name`,
		},
		"NotAnObject": {
			reason: "operatorSpec must be an object",
			spec:   map[string]any{"operatorSpec": "yes"},
			err:    "spec.operatorSpec: want an object, got string",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got Outputs
			os, err := ReadOperatorSpec(tc.spec)
			if err == nil {
				got, err = os.Values(account(), tc.extra)
			}
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.err, gotErr); diff != "" {
				t.Errorf("%s\nerror: -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestOutputsDeclare(t *testing.T) {
	o := Outputs{
		ConfigMaps: map[string]map[string]string{"endpoints": {"blob": "https://sa.blob/"}},
		Secrets:    map[string]map[string]SecretValue{"keys": {"key1": "k1"}},
	}
	rd := &Renderer{self: ref(widgetGVK, "sa")}
	o.Declare(rd)
	var got []map[string]any
	for _, u := range rd.Declared() {
		got = append(got, u.Object)
	}
	want := []map[string]any{
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "endpoints", "namespace": "ns"}, "data": map[string]any{"blob": "https://sa.blob/"}},
		{"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": map[string]any{"name": "keys", "namespace": "ns"}, "data": map[string]any{"key1": "azE="}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}

// TestSecretValuesAreRedacted: Outputs sit in Select's output, which the
// records serve; a secret value must not show there or in logs.
func TestSecretValuesAreRedacted(t *testing.T) {
	o := Outputs{Secrets: map[string]map[string]SecretValue{"keys": {"key1": "hunter2"}}}
	b, err := json.Marshal(jsonSafe(Selected{"outputs": o}))
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"json": string(b), "fmt": fmt.Sprint(o), "%v": fmt.Sprintf("%v %s", o.Secrets["keys"]["key1"], o.Secrets["keys"]["key1"])} {
		if strings.Contains(s, "hunter2") {
			t.Errorf("%s shows the secret: %s", name, s)
		}
		if !strings.Contains(s, "redacted") {
			t.Errorf("%s does not show the redaction: %s", name, s)
		}
	}
}

// TestOutputsKindRewritesOnlyOnChange runs OutputsKind on the mem harness:
// a status change that leaves the values alone writes nothing.
func TestOutputsKindRewritesOnlyOnChange(t *testing.T) {
	m := newMem()
	reg := New(memClient{m: m}, m)
	if err := reg.Register(OutputsKind(account().GVK, nil)); err != nil {
		t.Fatal(err)
	}
	if err := reg.install(t.Context()); err != nil {
		t.Fatal(err)
	}
	drain := func() {
		for reg.queue.Len() > 0 {
			reg.processNext(t.Context())
		}
	}
	sa := account().Object
	sa.Object["spec"].(map[string]any)["operatorSpec"] = map[string]any{"configMaps": []any{
		map[string]any{"name": "endpoints", "key": "blob", "value": "status.properties.primaryEndpoints.blob"},
	}}
	m.put(sa)
	drain()
	steps := []struct {
		name   string
		change func(u *unstructured.Unstructured)
		want   Stats
		blob   string
	}{
		{"unrelated status change", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "Premium_LRS", "status", "sku", "name")
		}, Stats{Selects: 1}, "https://sa.blob/"},
		{"endpoint change", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "https://sa2.blob/", "status", "properties", "primaryEndpoints", "blob")
		}, Stats{Selects: 1, Renders: 1, Applies: 1}, "https://sa2.blob/"},
	}
	for _, s := range steps {
		before := reg.Stats()
		m.update(RefOf(sa), s.change)
		drain()
		if diff := cmp.Diff(s.want, reg.Stats().Sub(before)); diff != "" {
			t.Errorf("%s: -want +got:\n%s", s.name, diff)
		}
		got, _, _ := unstructured.NestedString(m.obj(ref(cmGVK, "endpoints")).Object, "data", "blob")
		if diff := cmp.Diff(s.blob, got); diff != "" {
			t.Errorf("%s: ConfigMap value: -want +got:\n%s", s.name, diff)
		}
	}
}
