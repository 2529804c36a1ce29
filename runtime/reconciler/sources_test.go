package reconciler

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestValueSources: the objects an object's valuesFrom reads, from the
// full object and, the same, from its slim cached form; the tracker
// records them as named, and sees a status change on slim objects.
func TestValueSources(t *testing.T) {
	u := gadgetObject("reader")
	u.Object["spec"].(map[string]any)["valuesFrom"] = []any{
		map[string]any{"path": "tags.a", "from": map[string]any{"kind": "StorageAccount", "name": "src", "field": "status.id"}},
		map[string]any{"path": "tags.b", "configMapKeyRef": map[string]any{"name": "cm", "key": "k"}},
		map[string]any{"path": "tags.c", "from": map[string]any{"kind": "storageaccount", "name": "src", "field": "status.properties.accessTier"}},
		map[string]any{"path": "tags.d", "from": map[string]any{"group": "managedidentity.azure.armature.dev", "kind": "UserAssignedIdentity", "name": "id", "field": "status.properties.principalId"}},
	}
	want := "[storageaccount/src userassignedidentity/id]"
	if got := fmt.Sprint(valueSources(u)); got != want {
		t.Errorf("valueSources = %s, want %s", got, want)
	}
	u.Object["status"] = map[string]any{"id": "/x", "properties": map[string]any{"tier": "Hot"}}
	slim, err := transform(u.DeepCopy(), true)
	if err != nil {
		t.Fatal(err)
	}
	s := slim.(*unstructured.Unstructured)
	if got := fmt.Sprint(valueSources(s)); got != want {
		t.Errorf("valueSources(slim) = %s, want %s", got, want)
	}
	tr := &sourceTracker{}
	tr.index(s)
	if _, ok := tr.named.Load(u.GetNamespace() + "/storageaccount/src"); !ok {
		t.Error("index does not record the sources it indexes")
	}

	cooler := u.DeepCopy()
	cooler.Object["status"].(map[string]any)["properties"] = map[string]any{"tier": "Cool"}
	s2, err := transform(cooler, true)
	if err != nil {
		t.Fatal(err)
	}
	same, err := transform(u.DeepCopy(), true)
	if err != nil {
		t.Fatal(err)
	}
	if !statusChanged(s, s2.(*unstructured.Unstructured)) {
		t.Error("a changed status body is no change on slim objects")
	}
	if statusChanged(s, same.(*unstructured.Unstructured)) {
		t.Error("the same status is a change")
	}
}
