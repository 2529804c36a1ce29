package configurator

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func child(owner map[string]any) *Resource {
	return NewResource(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.armature.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "c", "namespace": "ns"},
		"spec":     map[string]any{"owner": owner},
	}})
}

func TestOwnerOf(t *testing.T) {
	m := newMem()
	ready := group("ready", true)
	_ = unstructured.SetNestedField(ready.Object, "/subscriptions/s/resourceGroups/ready", "status", "id")
	m.put(ready)
	m.put(group("pending", false))
	type want struct {
		Name, ARMID, ID string
		Found, Ready    bool
		Tracked         []Ref
	}
	cases := map[string]struct {
		reason string
		owner  map[string]any
		want   want
	}{
		"Ready":   {"a Ready owner with an id", map[string]any{"name": "ready"}, want{Name: "ready", ID: "/subscriptions/s/resourceGroups/ready", Found: true, Ready: true, Tracked: []Ref{ref(groupGVK, "ready")}}},
		"Pending": {"an owner that is not Ready yet is tracked, so turning Ready re-selects", map[string]any{"name": "pending"}, want{Name: "pending", Found: true, Tracked: []Ref{ref(groupGVK, "pending")}}},
		"Missing": {"a missing owner is tracked, so its creation re-selects", map[string]any{"name": "gone"}, want{Name: "gone", Tracked: []Ref{ref(groupGVK, "gone")}}},
		"ARMID":   {"an ARM id owner is outside the operator: ready, nothing tracked", map[string]any{"armId": "/subscriptions/s/resourceGroups/x", "name": "ready"}, want{ARMID: "/subscriptions/s/resourceGroups/x", ID: "/subscriptions/s/resourceGroups/x", Ready: true, Tracked: []Ref{}}},
		"None":    {"no owner: not ready, nothing tracked", nil, want{Tracked: []Ref{}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			idx := NewIndex()
			c := child(tc.owner)
			ix := idx.Track(t.Context(), m, c.Ref())
			o := OwnerOf(ix, c, groupGVK)
			ix.Done()
			got := want{Name: o.Name, ARMID: o.ARMID, ID: o.ID(), Found: o.Resource != nil, Ready: o.Ready(), Tracked: idx.Tracked(c.Ref())}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestEnqueueDependents is the reconciler's path: its own Index, its own
// controller queue; the owner's visible changes enqueue exactly its
// children of the given kind.
func TestEnqueueDependents(t *testing.T) {
	m := newMem()
	owner := m.put(group("rg", false))
	idx := NewIndex()
	childGVK := schema.GroupVersionKind{Group: "test.armature.dev", Version: "v1", Kind: "Widget"}
	otherGVK := schema.GroupVersionKind{Group: "test.armature.dev", Version: "v1", Kind: "Other"}
	for _, d := range []Ref{ref(childGVK, "c1"), ref(childGVK, "c2"), ref(otherGVK, "o1")} {
		ix := idx.Track(t.Context(), m, d)
		ix.Of(groupGVK, "rg")
		ix.Done()
	}
	ix := idx.Track(t.Context(), m, ref(childGVK, "c3"))
	ix.Of(groupGVK, "other-rg")
	ix.Done()

	h := idx.EnqueueDependents(groupGVK, childGVK)
	readyOwner := group("rg", true)
	readyOwner.SetResourceVersion("99")
	rvOnly := owner.DeepCopy()
	rvOnly.SetResourceVersion("100")
	cases := map[string]struct {
		reason string
		fire   func(q workqueue.TypedRateLimitingInterface[reconcile.Request])
		want   []string
	}{
		"TurnsReady": {"the owner turning Ready enqueues its Widget children, not the Other kind nor c3",
			func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Update(t.Context(), event.UpdateEvent{ObjectOld: owner, ObjectNew: readyOwner}, q)
			}, []string{"ns/c1", "ns/c2"}},
		"ResourceVersionOnly": {"nothing visible changed",
			func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Update(t.Context(), event.UpdateEvent{ObjectOld: owner, ObjectNew: rvOnly}, q)
			}, nil},
		"Deleted": {"deletion enqueues the children",
			func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Delete(t.Context(), event.DeleteEvent{Object: owner}, q)
			}, []string{"ns/c1", "ns/c2"}},
		"InitialList": {"the initial list is not a change",
			func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
				h.Create(t.Context(), event.CreateEvent{Object: owner, IsInInitialList: true}, q)
			}, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
			defer q.ShutDown()
			tc.fire(q)
			var got []string
			for q.Len() > 0 {
				r, _ := q.Get()
				got = append(got, r.String())
				q.Done(r)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
