package manifests

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// build runs kustomize (its Go API, as kubectl -k does) over dir and
// returns the objects, in kustomize's output order.
func build(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	out := make([]*unstructured.Unstructured, 0, m.Size())
	for _, r := range m.Resources() {
		// Through JSON, so that numbers are int64 and float64 as in
		// objects read from the apiserver.
		raw, err := r.MarshalJSON()
		u := &unstructured.Unstructured{}
		if err == nil {
			err = u.UnmarshalJSON(raw)
		}
		if err != nil {
			t.Fatalf("kustomize build %s: %s: %v", dir, r.CurId(), err)
		}
		out = append(out, u)
	}
	return out
}
