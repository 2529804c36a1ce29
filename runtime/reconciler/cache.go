package reconciler

import (
	"bytes"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// kubectlLastApplied is kubectl's copy of the whole object: the reconciler
// never reads it.
const kubectlLastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// specFields is what a compacted managedFields entry keeps of its fields:
// that it owned spec fields, which is all versions.go asks.
var specFields = []byte(`{"f:spec":{}}`)

// TransformForCache is a cache transform (cache.Options.DefaultTransform)
// that keeps in the operator's informer cache only what the reconciler
// reads: managedFields entries lose their field sets (an entry that owned
// spec fields keeps the mark `{"f:spec":{}}`, which the choice of version
// reads), kubectl's last-applied-configuration annotation goes. The
// reconciler writes with merge patches computed against the cached copy,
// which never carry what the transform took out; it never Updates a whole
// object. Other objects pass through.
func TransformForCache(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	if a := u.GetAnnotations(); a[kubectlLastApplied] != "" {
		delete(a, kubectlLastApplied)
		u.SetAnnotations(a)
	}
	mf := u.GetManagedFields()
	if len(mf) == 0 {
		return u, nil
	}
	out := make([]metav1.ManagedFieldsEntry, 0, len(mf))
	for _, e := range mf {
		owned := e.FieldsV1 != nil && bytes.Contains(e.FieldsV1.Raw, []byte(`"f:spec"`))
		e.FieldsV1 = nil
		if owned {
			e.FieldsV1 = &metav1.FieldsV1{Raw: specFields}
		}
		out = append(out, e)
	}
	u.SetManagedFields(out)
	return u, nil
}
