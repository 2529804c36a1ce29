package reconciler

import (
	"context"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// A cached copy is judged against the reconciler's own last write, without
// a read from the apiserver (APIReader is nil here, so any read would
// answer "not stale").
func TestStaleAgainstOwnWrites(t *testing.T) {
	ctx := context.Background()
	r := &Reconciler{mem: newMemory()}
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

// An object this reconciler never wrote is judged by a read of its
// metadata from the apiserver: another writer's operation or last-applied
// body, missing from the cached copy, makes it stale.
func TestStaleReadsMetadata(t *testing.T) {
	gvk, s := storageAccountScheme()
	live := storageAccountObject(gvk)
	live.SetAnnotations(map[string]string{core.AnnotationOperation: `{"verb":"PUT","token":"t"}`})
	r := &Reconciler{Desc: &descriptor.Descriptor{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, APIReader: fake.NewClientBuilder().WithScheme(s).WithObjects(live).Build(), mem: newMemory()}
	cached := live.DeepCopy()
	cached.SetResourceVersion("5")
	cached.SetAnnotations(nil)
	if got, err := r.stale(context.Background(), newState(cached)); err != nil || !got {
		t.Errorf("a cached copy without the live operation: stale=%v err=%v, want true", got, err)
	}
	cached.SetAnnotations(live.GetAnnotations())
	if got, err := r.stale(context.Background(), newState(cached)); err != nil || got {
		t.Errorf("a cached copy with the live annotations: stale=%v err=%v, want false", got, err)
	}

	// An object created after the reconciler started had no other writer:
	// no read (the live operation is not looked for).
	cached.SetAnnotations(nil)
	r.started = time.Now()
	for created, want := range map[time.Duration]bool{-time.Minute: true, time.Second: true, time.Minute: false} {
		cached.SetCreationTimestamp(metav1.NewTime(r.started.Add(created)))
		if got, err := r.stale(context.Background(), newState(cached)); err != nil || got != want {
			t.Errorf("created %v after the start, without the live operation: stale=%v err=%v, want %v", created, got, err, want)
		}
	}
}

// A reconcile whose cached copy is older than the reconciler's last write
// to the object is put back in the queue before anything else: no ARM call
// (r.ARM is nil here: one would fail), no drift judged on the old copy.
func TestReconcileWaitsForOwnWrite(t *testing.T) {
	gvk, s := storageAccountScheme()
	cached := storageAccountObject(gvk)
	cached.SetUID("u1")
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(cached).Build()
	r := &Reconciler{
		Desc:   &descriptor.Descriptor{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Client: c,
		Config: Config{ReconcileTimeout: time.Minute},
		mem:    newMemory(),
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(gvk)
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(cached), got); err != nil {
		t.Fatal(err)
	}
	rv, err := strconv.ParseUint(got.GetResourceVersion(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	r.mem.wrote(got.GetUID(), rv+1)
	res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(cached)})
	if err != nil || !res.Requeue {
		t.Errorf("cached copy behind our own write: result %+v, err %v; want a requeue and no error", res, err)
	}
	if !r.behind(got) {
		t.Error("behind: false for a copy older than our write")
	}
	r.mem.wrote(got.GetUID(), rv)
	if r.behind(got) {
		t.Error("behind: true for the copy of our write itself")
	}
}

// storageAccountScheme knows the StorageAccount kind as unstructured, for a
// fake client.
func storageAccountScheme() (schema.GroupVersionKind, *runtime.Scheme) {
	gvk := schema.GroupVersionKind{Group: "storage.azure.armature.dev", Version: "v20230501", Kind: "StorageAccount"}
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
	s.AddKnownTypeWithName(gvk.GroupVersion().WithKind("StorageAccountList"), &unstructured.UnstructuredList{})
	return gvk, s
}

// storageAccountObject is an empty StorageAccount ns/media.
func storageAccountObject(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetGroupVersionKind(gvk)
	o.SetNamespace("ns")
	o.SetName("media")
	return o
}
