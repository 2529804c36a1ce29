package reconciler

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Hooks customise the generic reconciler for one kind. Every hook is
// optional.
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

var (
	hooksMu sync.RWMutex
	hooks   = map[schema.GroupVersionKind]Hooks{}
)

// RegisterHooks sets the hooks of a kind. Call it before the manager starts.
func RegisterHooks(gvk schema.GroupVersionKind, h Hooks) {
	hooksMu.Lock()
	defer hooksMu.Unlock()
	hooks[gvk] = h
}

func hooksFor(gvk schema.GroupVersionKind) Hooks {
	hooksMu.RLock()
	defer hooksMu.RUnlock()
	return hooks[gvk]
}
