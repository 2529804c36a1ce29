package reconciler

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A cached copy is judged against the reconciler's own last write, without
// a read from the apiserver (APIReader is nil here, so any read would
// answer "not stale").
func TestStaleAgainstOwnWrites(t *testing.T) {
	ctx := context.Background()
	r := &Reconciler{}
	obj := &unstructured.Unstructured{}
	obj.SetUID("u1")
	obj.SetResourceVersion("10")
	st := newState(obj)
	obj.SetResourceVersion("12") // written during this reconcile
	if s, err := r.stale(ctx, st); err != nil || s {
		t.Fatalf("an object written in this reconcile is the apiserver's answer: stale=%v err=%v", s, err)
	}
	r.remember(st)

	for rv, want := range map[string]bool{"10": true, "11": true, "12": false, "13": false} {
		c := obj.DeepCopy()
		c.SetResourceVersion(rv)
		if got, _ := r.stale(ctx, newState(c)); got != want {
			t.Errorf("cached resourceVersion %s after our write at 12: stale=%v, want %v", rv, got, want)
		}
	}

	// A reconcile that writes nothing leaves the record alone.
	c := obj.DeepCopy()
	c.SetResourceVersion("13")
	r.remember(newState(c))
	c.SetResourceVersion("11")
	if got, _ := r.stale(ctx, newState(c)); !got {
		t.Error("a read-only reconcile must not forget the last write")
	}
}
