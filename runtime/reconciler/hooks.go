package reconciler

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Hooks customise the generic reconciler for one kind: Reconciler.Hooks,
// which SetupAll sets from WithHooks. Every hook is optional.
type Hooks struct {
	// MutateBody may change the ARM body before it is compared and sent.
	MutateBody func(obj *unstructured.Unstructured, body map[string]any) error
	// ClassifyError may decide that an error is the user's to fix
	// (terminal, with a reason) or a transient one. ok=false keeps the
	// generic classification.
	ClassifyError func(err error) (terminal bool, reason string, ok bool)
	// Status may add to the status body read from ARM before it is written
	// (an extra status step).
	Status func(obj *unstructured.Unstructured, status map[string]any) error
}

// WithHooks gives the reconciler of one kind (and version) its hooks.
// Hooks belong to the operator that sets them up, not to the process: two
// operators in one process (tests) do not see each other's.
func WithHooks(gvk schema.GroupVersionKind, h Hooks) SetupOption {
	return func(o *setupOptions) {
		if o.hooks == nil {
			o.hooks = map[schema.GroupVersionKind]Hooks{}
		}
		o.hooks[gvk] = h
	}
}
