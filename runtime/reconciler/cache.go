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

// TransformForCache returns a cache transform (cache.Options.
// DefaultTransform) that keeps in the operator's informer cache only what
// the reconciler reads: managedFields entries lose their field sets (an
// entry that owned spec fields keeps the mark `{"f:spec":{}}`, which the
// choice of version reads), kubectl's last-applied-configuration
// annotation goes, and — with stripStatus — status keeps its id and the
// operator's members, the ARM body replaced by its digest (see
// writeStatus and the drift observer, which compare digests). Nothing
// else (a composition that reads status fields) may then read status
// from the cache. The reconciler writes with patches that never carry what
// the transform took out; it never Updates a whole object. Objects that
// are not unstructured pass through.
func TransformForCache(stripStatus bool) func(any) (any, error) {
	return func(obj any) (any, error) { return transform(obj, stripStatus) }
}

func transform(obj any, stripStatus bool) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	if status, ok := u.Object["status"].(map[string]any); ok && stripStatus && status[statusDigest] == nil {
		if body := armBody(status); len(body) > 0 {
			kept := operatorPart(status)
			if id, ok := status["id"]; ok {
				kept["id"] = id
			}
			kept[statusDigest] = encodeDigest(digest(body))
			u.Object["status"] = kept
		}
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
