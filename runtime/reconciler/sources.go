package reconciler

import (
	"context"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The objects spec.valuesFrom reads (docs/references.md) are tracked, not
// polled: valuesIndex indexes every kind's objects by the objects their
// valuesFrom entries read ("kind/name"), and the sourceTracker sees
// every served kind's events through the fan-out's one handler per kind. When an object comes, its status changes, or it
// goes, the tracker adds the objects of any kind that read it to that
// kind's work queue (the fan-out's). Any kind may read any kind, so a watch per
// controller would be one per pair of kinds; the tracker is one per kind,
// and does nothing for an object no valuesFrom names (named).

// valuesIndex is the field index of the objects a spec's valuesFrom reads.
const valuesIndex = "spec.valuesFrom.from"

// slimValues keeps valuesIndex's values on a slim object, comma-separated.
const slimValues = "armature.dev/values-from"

// valueSources returns the objects an object's valuesFrom entries read,
// as "kind/name" (kind in lower case), sorted, each once.
func valueSources(u *unstructured.Unstructured) []string {
	if _, slim := u.Object[packedKey]; slim {
		s, _ := u.Object[slimValues].(string)
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	s, _ := u.Object["spec"].(map[string]any)
	list, _ := s["valuesFrom"].([]any)
	var out []string
	for _, item := range list {
		m, _ := item.(map[string]any)
		if o, ok := objectRef(m["from"], nil); ok {
			out = append(out, o.key())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// slimStatus keeps the status digest on a slim object (its status is
// packed): the tracker compares it.
const slimStatus = "armature.dev/status-digest"

// statusChanged reports whether an update changed an object's status (its
// id, readiness or ARM body), on slim objects by their summary members.
func statusChanged(old, cur *unstructured.Unstructured) bool {
	if _, slim := cur.Object[packedKey]; slim {
		for _, k := range []string{slimStatus, slimID, slimReady} {
			if old.Object[k] != cur.Object[k] {
				return true
			}
		}
		return false
	}
	return !equality.Semantic.DeepEqual(old.Object["status"], cur.Object["status"])
}

// sourceTracker requeues the readers of an object whose status changed:
// the fan-out (fanout.go) passes it every served kind's events.
type sourceTracker struct {
	// served are the kinds served now: readers of other kinds are not
	// listed.
	served *kindSet
	// readers are the controllers whose objects may read a source: all.
	readers []*Reconciler
	// named are the sources some valuesFrom named ("namespace/kind/name"),
	// recorded by the index function: others are not looked up. Never
	// shrinks; a stale entry costs one lookup.
	named sync.Map
	// enqueue adds a request to the queue of a kind's controller (the
	// fan-out's enqueue; nothing before the controller starts, whose
	// first list reconciles everything).
	enqueue func(schema.GroupKind, reconcile.Request)
}

// index is valuesIndex's function: it records what it indexes in named.
func (t *sourceTracker) index(o client.Object) []string {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	keys := valueSources(u)
	for _, k := range keys {
		t.named.Store(u.GetNamespace()+"/"+k, struct{}{})
	}
	return keys
}

// notify requeues the objects that read src through valuesFrom.
func (t *sourceTracker) notify(ctx context.Context, kind string, src *unstructured.Unstructured) {
	key := strings.ToLower(kind) + "/" + src.GetName()
	if _, ok := t.named.Load(src.GetNamespace() + "/" + key); !ok {
		return
	}
	for _, r := range t.readers {
		if !t.served.has(r.gvk().GroupKind()) {
			continue
		}
		for _, item := range r.listIndexed(ctx, r.gvk(), src.GetNamespace(), valuesIndex, key) {
			t.enqueue(r.gvk().GroupKind(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: item.GetNamespace(), Name: item.GetName()}})
		}
	}
}
