package reconciler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func valuesFrom(entries ...map[string]any) map[string]any {
	list := make([]any, len(entries))
	for i, e := range entries {
		list[i] = e
	}
	return map[string]any{"valuesFrom": list}
}

func TestValuesFromWaitThenSend(t *testing.T) {
	w := widget("w1", widgetID)
	m := newRefMachine(t, refObject(valuesFrom(
		map[string]any{"path": "properties.tier", "from": map[string]any{"kind": "Widget", "name": "w1", "field": "status.properties.tier"}},
		map[string]any{"path": "tags.team", "configMapKeyRef": map[string]any{"name": "settings", "key": "team"}},
		map[string]any{"path": "properties.password", "secretKeyRef": map[string]any{"name": "pw", "key": "value"}},
	)), w)
	// The widget has no tier yet: wait, nothing sent, polled again.
	res, err := m.run()
	if err != nil {
		t.Fatal(err)
	}
	ready := condOf(m.get(), tReady)
	if ready["reason"] != "WaitingForReference" || !strings.Contains(ready["message"].(string), "spec.valuesFrom[0]: Widget w1 has no status.properties.tier yet") || res.RequeueAfter != mPoll {
		t.Fatalf("Ready %v, requeue %v; want WaitingForReference on spec.valuesFrom[0], polled after %v", ready, res.RequeueAfter, mPoll)
	}
	src := &unstructured.Unstructured{}
	src.SetGroupVersionKind(widgetGVK)
	if err := m.c.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "w1"}, src); err != nil {
		t.Fatal(err)
	}
	src.Object["status"] = map[string]any{"id": widgetID, "properties": map[string]any{"tier": "Premium"}}
	if err := m.c.Update(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	m.run() // the ConfigMap is missing now
	if r := condOf(m.get(), tReady); !strings.Contains(r["message"].(string), "ConfigMap settings does not exist") {
		t.Fatalf("Ready %v: want the missing ConfigMap named", r)
	}
	for _, o := range []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "settings"}, Data: map[string]string{"team": "payments"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "pw"}, Data: map[string][]byte{"value": []byte("s3cret")}},
	} {
		if err := m.c.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	body := `{"location":"westeurope","properties":{"tier":"Premium","password":"s3cret"},"tags":{"team":"payments"}}`
	if _, err := m.run(get(nil, notFound), put(body, ok(live()), nil), get(ok(live()), nil)); err != nil {
		t.Fatal(err)
	}
	a := m.get().GetAnnotations()
	if strings.Contains(a[tAnnOperation]+a[tAnnLastApplied], "s3cret") {
		t.Error("the Secret's value is in the object's records")
	}
}

func TestValuesFromSecretOnlyToSecrets(t *testing.T) {
	m := newRefMachine(t, refObject(valuesFrom(
		map[string]any{"path": "properties.tier", "secretKeyRef": map[string]any{"name": "pw", "key": "value"}},
	)))
	if _, err := m.run(); err == nil {
		t.Fatal("no error")
	}
	if r := condOf(m.get(), tReady); r["reason"] != "InvalidValuesFrom" || !strings.Contains(r["message"].(string), "properties.tier is not one") {
		t.Errorf("Ready %v, want InvalidValuesFrom", r)
	}
}
