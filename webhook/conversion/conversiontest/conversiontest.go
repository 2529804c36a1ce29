package conversiontest

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/webhook/conversion"
)

// RoundTrip converts n random objects of gvk to every other version of
// its kind and back, and fails on the first that comes back different.
func RoundTrip(t *testing.T, descs []*descriptor.Descriptor, gvk schema.GroupVersionKind, n int) {
	t.Helper()
	c := conversion.New(descs)
	var d *descriptor.Descriptor
	for _, x := range descs {
		if x.GroupVersionKind() == gvk {
			d = x
		}
	}
	if d == nil {
		t.Fatalf("%s is not a generated kind", gvk)
	}
	if len(d.Versions) < 2 {
		t.Fatalf("%s is served in one version: nothing to convert", gvk)
	}
	for _, v := range d.Versions {
		if v == d.Version {
			continue
		}
		rng := rand.New(rand.NewSource(int64(len(d.Kind)*31 + len(v))))
		for i := 0; i < n; i++ {
			in := RandomObject(rng, d)
			mid, err := c.Convert(in, v)
			if err != nil {
				t.Fatal(err)
			}
			back, err := c.Convert(mid, d.Version)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(in.Object)
			b, _ := json.Marshal(back.Object)
			if string(a) != string(b) {
				t.Fatalf("round trip %s → %s → %s lost something:\n got %s\nwant %s", d.Version, v, d.Version, b, a)
			}
		}
	}
}

// RandomObject fills about half of the leaves of d's property table with
// values of their JSON type: spec gets the writable and createOnly ones,
// status the readOnly ones, beside the operator fields.
func RandomObject(rng *rand.Rand, d *descriptor.Descriptor) *unstructured.Unstructured {
	spec := map[string]any{"azureName": "x", "owner": map[string]any{"name": "o"}}
	status := map[string]any{"observedGeneration": int64(1)}
	for _, p := range d.Properties {
		if !d.Open(p.Path) || rng.Intn(2) == 0 {
			continue
		}
		target := spec
		switch p.Class {
		case descriptor.ReadOnly:
			target = status
		case descriptor.Writable, descriptor.CreateOnly:
		default:
			continue
		}
		set(target, p.Path, value(rng, p.Type))
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": d.Group + "/" + d.Version, "kind": d.Kind,
		"metadata": map[string]any{"name": "r", "namespace": "n"}, "spec": spec, "status": status}}
}

func set(obj map[string]any, segs descriptor.Path, v any) {
	key := segs[0]
	if key == descriptor.Values {
		key = "k1"
	}
	if len(segs) == 1 {
		obj[key] = v
		return
	}
	if segs[1] == descriptor.Items {
		arr, _ := obj[key].([]any)
		if len(arr) == 0 {
			arr = []any{map[string]any{}}
		}
		item, ok := arr[0].(map[string]any)
		if !ok {
			return
		}
		if len(segs) == 2 {
			obj[key] = []any{v}
			return
		}
		set(item, segs[2:], v)
		obj[key] = arr
		return
	}
	next, ok := obj[key].(map[string]any)
	if !ok {
		if _, taken := obj[key]; taken {
			return
		}
		next = map[string]any{}
		obj[key] = next
	}
	set(next, segs[1:], v)
}

func value(rng *rand.Rand, typ string) any {
	switch typ {
	case "integer":
		return int64(rng.Intn(1000))
	case "number":
		return float64(rng.Intn(1000)) + 0.5
	case "boolean":
		return rng.Intn(2) == 0
	case "array":
		return []any{fmt.Sprint("v", rng.Intn(100))}
	case "object":
		return map[string]any{"k": fmt.Sprint("v", rng.Intn(100))}
	}
	return fmt.Sprint("s", rng.Intn(1000))
}
