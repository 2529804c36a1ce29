package reconciler

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// claimOf and claimIndex index the claims the reconciler checks before
// a first create (claimant, claim in apply.go).

// claimIndex is the field index of the ARM id an object claims (lower
// case): its sealed AnnotationARMID, else its status.id.
const claimIndex = "armature.dev/claim"

// claimOf is the value of claimIndex for obj: what the reconciler would
// delete for it, or has observed.
func (r *Reconciler) claimOf(obj client.Object) []string {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	if id, _ := r.seal.armID(u); id != "" {
		return []string{strings.ToLower(id)}
	}
	if id := statusID(u); id != "" {
		return []string{strings.ToLower(id)}
	}
	return nil
}
