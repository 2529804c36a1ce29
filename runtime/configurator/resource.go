package configurator

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// ConditionReady is the condition type that says a resource is usable.
const ConditionReady = "Ready"

// Ref names one resource: its kind (with version), namespace and name. It
// is the key of the work queue, of the dependency index and of the records.
// The namespace is empty for cluster-scoped resources.
type Ref struct {
	schema.GroupVersionKind
	Namespace string
	Name      string
}

// RefOf is the Ref of obj, which must carry its kind (unstructured objects
// always do).
func RefOf(obj *unstructured.Unstructured) Ref {
	return Ref{GroupVersionKind: obj.GroupVersionKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// String is "Kind.group namespace/name".
func (r Ref) String() string { return kindKey(r.GroupVersionKind) + " " + r.nameKey() }

func (r Ref) nameKey() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// kindKey is how the records name a kind: "Kind.group", or "Kind" for the
// core group (kubectl's resource.group spelling, with the kind).
func kindKey(gvk schema.GroupVersionKind) string {
	if gvk.Group == "" {
		return gvk.Kind
	}
	return gvk.Kind + "." + gvk.Group
}

// Resource is one resource as Select sees it: kind, identity, the metadata
// that matters, spec and status. Its maps are the cache's copy: read them,
// never modify them.
type Resource struct {
	GVK             schema.GroupVersionKind
	Namespace       string
	Name            string
	UID             types.UID
	Generation      int64
	ResourceVersion string
	Labels          map[string]string
	Annotations     map[string]string
	// Spec is .spec; nil when the kind has none (a ConfigMap: use Object).
	Spec map[string]any
	// Status is .status; nil when not set yet.
	Status map[string]any
	// Object is the whole object as read.
	Object *unstructured.Unstructured
}

// NewResource wraps u without copying it.
func NewResource(u *unstructured.Unstructured) *Resource {
	spec, _ := u.Object["spec"].(map[string]any)
	status, _ := u.Object["status"].(map[string]any)
	return &Resource{
		GVK:             u.GroupVersionKind(),
		Namespace:       u.GetNamespace(),
		Name:            u.GetName(),
		UID:             u.GetUID(),
		Generation:      u.GetGeneration(),
		ResourceVersion: u.GetResourceVersion(),
		Labels:          u.GetLabels(),
		Annotations:     u.GetAnnotations(),
		Spec:            spec,
		Status:          status,
		Object:          u,
	}
}

// Ref is the resource's Ref.
func (r *Resource) Ref() Ref {
	return Ref{GroupVersionKind: r.GVK, Namespace: r.Namespace, Name: r.Name}
}

// Get returns the value at path in the whole object (see Lookup for the
// syntax), and whether it is there. A malformed path is not there.
func (r *Resource) Get(path string) (any, bool) {
	v, ok, err := Lookup(r.Object.Object, path)
	return v, ok && err == nil
}

// String returns the value at path when it is a string, else "".
func (r *Resource) String(path string) string {
	v, _ := r.Get(path)
	s, _ := v.(string)
	return s
}

// Condition returns the status condition of type t, or nil.
func (r *Resource) Condition(t string) *metav1.Condition {
	conds, _ := r.Status["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != t {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		return &metav1.Condition{
			Type:    t,
			Status:  metav1.ConditionStatus(str("status")),
			Reason:  str("reason"),
			Message: str("message"),
		}
	}
	return nil
}

// Ready reports whether the Ready condition is True.
func (r *Resource) Ready() bool {
	c := r.Condition(ConditionReady)
	return c != nil && c.Status == metav1.ConditionTrue
}

// MarshalJSON writes a reference, not the content: a Resource placed in a
// Select output shows in the records as which version of what was read,
// and a Secret's data never reaches them.
func (r *Resource) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"apiVersion":      r.GVK.GroupVersion().String(),
		"kind":            r.GVK.Kind,
		"namespace":       r.Namespace,
		"name":            r.Name,
		"resourceVersion": r.ResourceVersion,
	})
}

// visible is what a change of a tracked resource is judged on: everything
// a Resource shows except the bookkeeping that moves on every write
// (resourceVersion, managedFields).
func visible(u *unstructured.Unstructured) map[string]any {
	out := make(map[string]any, len(u.Object)+1)
	for k, v := range u.Object {
		if k != "metadata" {
			out[k] = v
		}
	}
	out["metadata"] = map[string]any{
		"uid":               u.GetUID(),
		"generation":        u.GetGeneration(),
		"labels":            u.GetLabels(),
		"annotations":       u.GetAnnotations(),
		"deletionTimestamp": u.GetDeletionTimestamp() != nil,
	}
	return out
}

// visibleChanged reports whether a tracked resource changed in a way its
// dependents can see.
func visibleChanged(old, cur *unstructured.Unstructured) bool {
	return !reflect.DeepEqual(visible(old), visible(cur))
}

// digest is a short hash of what a dependent read, for the records.
func digest(u *unstructured.Unstructured) string {
	b, err := json.Marshal(visible(u))
	if err != nil {
		return ""
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return fmt.Sprintf("%016x", h.Sum64())
}
