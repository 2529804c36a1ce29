package configurator

import (
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Selected is what Select returns and Render receives. Render runs only when
// it differs from the previous one by Equal. Do not modify a Selected, or
// anything in it, after Select returned it: the registry keeps it to
// compare with the next one.
type Selected map[string]any

// Equal is the shallow diff of two Select outputs:
//
//   - the same map (or both empty) is equal;
//   - different key counts, or a key of one missing in the other, differ;
//   - each key's values are compared as units, by identity or equality:
//     scalars (strings, numbers, bools) with ==, so int64(1) and float64(1)
//     differ; *Resource and *unstructured.Unstructured values are equal
//     when they are the same version of the same object (kind, namespace,
//     name, uid, resourceVersion), else when what Select can see of them
//     (spec, status, labels, annotations, generation; not managedFields)
//     is equal; anything else (maps, slices, structs, pointers) is equal
//     when it is the same pointer, else when reflect.DeepEqual says so.
//
// The last rule is a choice: Select rebuilds its maps on every run, so
// identity alone would render every time. Values of different dynamic
// types always differ.
func Equal(a, b Selected) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() {
		return true
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || !equalValue(va, vb) {
			return false
		}
	}
	return true
}

func equalValue(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta := reflect.TypeOf(a)
	if ta != reflect.TypeOf(b) {
		return false
	}
	switch x := a.(type) {
	case *Resource:
		y := b.(*Resource)
		if x == nil || y == nil {
			return x == y
		}
		return sameObject(x.Object, y.Object)
	case *unstructured.Unstructured:
		return sameObject(x, b.(*unstructured.Unstructured))
	}
	switch ta.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return a == b
	case reflect.Map, reflect.Pointer, reflect.Slice:
		va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
		if va.UnsafePointer() == vb.UnsafePointer() && (ta.Kind() != reflect.Slice || va.Len() == vb.Len()) {
			return true
		}
	}
	return reflect.DeepEqual(a, b)
}

// sameObject: the same version of the same object, or the same visible
// content.
func sameObject(x, y *unstructured.Unstructured) bool {
	if x == nil || y == nil {
		return x == y
	}
	if x == y {
		return true
	}
	if x.GroupVersionKind() != y.GroupVersionKind() || x.GetNamespace() != y.GetNamespace() ||
		x.GetName() != y.GetName() || x.GetUID() != y.GetUID() {
		return false
	}
	if rv := x.GetResourceVersion(); rv != "" && rv == y.GetResourceVersion() {
		return true
	}
	return !visibleChanged(x, y)
}
