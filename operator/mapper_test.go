package operator

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// countingMapper answers every RESTMapping after failing the first one,
// and counts the calls.
type countingMapper struct {
	meta.RESTMapper
	calls int
}

func (c *countingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	c.calls++
	if c.calls == 1 {
		return nil, errors.New("no match yet")
	}
	return &meta.RESTMapping{GroupVersionKind: gk.WithVersion(versions[0]), Scope: meta.RESTScopeNamespace}, nil
}

// TestMemoMapper: a mapping found once is answered from memory, a copy each
// time; a failure is asked again.
func TestMemoMapper(t *testing.T) {
	next := &countingMapper{}
	m := &memoMapper{RESTMapper: next}
	gk := schema.GroupKind{Group: "storage.azure.armature.dev", Kind: "StorageAccount"}
	if _, err := m.RESTMapping(gk, "v20230501"); err == nil {
		t.Fatal("the first answer fails")
	}
	for range 3 {
		got, err := m.RESTMapping(gk, "v20230501")
		if err != nil || got.Scope.Name() != meta.RESTScopeNameNamespace || got.GroupVersionKind.Version != "v20230501" {
			t.Fatalf("mapping %+v, %v", got, err)
		}
		got.Scope = meta.RESTScopeRoot // a caller's change stays its own
	}
	if next.calls != 2 {
		t.Errorf("%d calls reached the dynamic mapper, want 2 (the failure and the first success)", next.calls)
	}
	if _, err := m.RESTMapping(gk, "v20230101"); err != nil || next.calls != 3 {
		t.Errorf("another version is its own mapping: %v, %d calls", err, next.calls)
	}
}
