package configurator

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// Renderer is what Render declares resources through. It shows the
// identity of the rendered resource, not its content: Render must depend
// on Select's output only, or it would not re-run when that content
// changes.
type Renderer struct {
	self     Ref
	uid      types.UID
	scheme   *runtime.Scheme
	declared []*unstructured.Unstructured
	errs     []error
}

// NewRenderer returns a Renderer for self, converting typed objects with
// scheme (nil: only unstructured objects or typed ones with their kind set).
// The Registry makes its own; this one is for testing a Render function.
func NewRenderer(self Ref, scheme *runtime.Scheme) *Renderer {
	return &Renderer{self: self, scheme: scheme}
}

// Err is the error of the declarations so far (a resource declared in
// another namespace, without a name or kind), or nil.
func (rd *Renderer) Err() error { return errors.Join(rd.errs...) }

// Namespace is the rendered resource's namespace; declared resources live
// there.
func (rd *Renderer) Namespace() string { return rd.self.Namespace }

// Name is the rendered resource's name.
func (rd *Renderer) Name() string { return rd.self.Name }

// Resource declares obj: after Render, it is applied with server-side apply
// (as field owner of what obj sets), a controller owner reference to the
// rendered resource and the label armature.dev/rendered-by=<uid>; a
// resource declared last time and not this time is deleted. obj is a typed
// object of the client's scheme or an *unstructured.Unstructured with
// apiVersion and kind; its namespace defaults to the rendered resource's
// and may not differ (owner references do not cross namespaces). Status,
// resourceVersion, uid and creationTimestamp are dropped. obj is copied.
func (rd *Renderer) Resource(obj client.Object) {
	u, err := rd.toUnstructured(obj)
	if err != nil {
		rd.errs = append(rd.errs, err)
		return
	}
	switch ns := u.GetNamespace(); ns {
	case "":
		u.SetNamespace(rd.self.Namespace)
	case rd.self.Namespace:
	default:
		rd.errs = append(rd.errs, fmt.Errorf("declared %s %s is in namespace %q, not %q", u.GetKind(), u.GetName(), ns, rd.self.Namespace))
		return
	}
	if u.GetName() == "" {
		rd.errs = append(rd.errs, fmt.Errorf("declared %s has no name", u.GetKind()))
		return
	}
	rd.declared = append(rd.declared, u)
}

// Declared returns the resources declared so far (for tests of a Render).
func (rd *Renderer) Declared() []*unstructured.Unstructured { return rd.declared }

func (rd *Renderer) toUnstructured(obj client.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		c := u.DeepCopy()
		if c.GetKind() == "" || c.GetAPIVersion() == "" {
			return nil, fmt.Errorf("declared %s: unstructured object without apiVersion and kind", c.GetName())
		}
		clean(c)
		return c, nil
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		if rd.scheme == nil {
			return nil, fmt.Errorf("declared %T: no kind set and no scheme", obj)
		}
		var err error
		if gvk, err = apiutil.GVKForObject(obj, rd.scheme); err != nil {
			return nil, fmt.Errorf("declared %T: %w", obj, err)
		}
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("declared %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	clean(u)
	return u, nil
}

// clean drops what a typed object carries but an apply must not claim.
func clean(u *unstructured.Unstructured) {
	delete(u.Object, "status")
	md, _ := u.Object["metadata"].(map[string]any)
	for _, k := range []string{"creationTimestamp", "resourceVersion", "uid", "generation", "managedFields"} {
		delete(md, k)
	}
}
