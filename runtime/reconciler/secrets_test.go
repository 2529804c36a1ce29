package reconciler

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

func TestSecretRefs(t *testing.T) {
	d := gadget()
	d.SecretPaths = append(d.SecretPaths, descriptor.P("properties", "keys", descriptor.Items, "value"))
	registerSecretPaths(d)
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"properties": map[string]any{
		"password": map[string]any{"name": "db", "key": "pw"},
		"keys":     []any{map[string]any{"value": map[string]any{"name": "k1", "key": "a"}}, map[string]any{"value": map[string]any{"name": "db", "key": "b"}}},
	}}}}
	obj.SetGroupVersionKind(d.GroupVersionKind())
	if diff := cmp.Diff([]string{core.CredentialSecret, "db", "k1"}, secretRefs(obj)); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	obj.SetAnnotations(map[string]string{core.AnnotationCredential: "payments"})
	if diff := cmp.Diff([]string{"db", "k1", "payments"}, secretRefs(obj)); diff != "" {
		t.Errorf("refs with a credential annotation (-want +got):\n%s", diff)
	}
	// A slim object keeps them.
	if err := pack(obj); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"db", "k1", "payments"}, secretRefs(obj)); diff != "" {
		t.Errorf("refs of the slim object (-want +got):\n%s", diff)
	}
}

// countingReader counts Gets.
type countingReader struct {
	client.Reader
	n atomic.Int32
}

func (c *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.n.Add(1)
	return c.Reader.Get(ctx, key, obj, opts...)
}

// TestSecretReader: data is read from the apiserver once per
// resourceVersion; a Secret that is gone is forgotten.
func TestSecretReader(t *testing.T) {
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db"}, Data: map[string][]byte{"pw": []byte("one")}}
	c := fake.NewClientBuilder().WithObjects(s).Build()
	api := &countingReader{Reader: c}
	r := NewSecretReader(c, api)
	key := client.ObjectKeyFromObject(s)
	for range 3 {
		var got corev1.Secret
		if err := r.Get(ctx, key, &got); err != nil || string(got.Data["pw"]) != "one" {
			t.Fatalf("Get: %v %q", err, got.Data["pw"])
		}
		got.Data["pw"] = []byte("mutated") // a caller's change stays its own
	}
	if n := api.n.Load(); n != 1 {
		t.Errorf("%d reads of the data for one resourceVersion, want 1", n)
	}
	cur := &corev1.Secret{}
	_ = c.Get(ctx, key, cur)
	cur.Data["pw"] = []byte("two")
	if err := c.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	var got corev1.Secret
	if err := r.Get(ctx, key, &got); err != nil || string(got.Data["pw"]) != "two" {
		t.Fatalf("after the rotation: %v %q", err, got.Data["pw"])
	}
	if err := c.Delete(ctx, cur); err != nil {
		t.Fatal(err)
	}
	if err := r.Get(ctx, key, &got); !apierrors.IsNotFound(err) {
		t.Errorf("a deleted Secret: %v", err)
	}
	if r.Len() != 0 {
		t.Errorf("%d Secrets kept after the deletion", r.Len())
	}
}

// TestStatusHoldsNoSecret: a GET body that echoes a secret (or writeOnly)
// value leaves it out of status.
func TestStatusHoldsNoSecret(t *testing.T) {
	got := normalize(gadget(), map[string]any{"id": "/x", "location": "westeurope", "properties": map[string]any{"password": "echoed", "tier": "Hot", "provisioningState": "Succeeded"}})
	want := map[string]any{"location": "westeurope", "properties": map[string]any{"tier": "Hot", "provisioningState": "Succeeded"}}
	if _, ok := got["id"]; ok {
		delete(want, "id")
		want["id"] = "/x"
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status body (-want +got):\n%s", diff)
	}
}
