package reconciler

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// slimmed is obj after the slim cache transform.
func slimmed(t *testing.T, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out, err := TransformForCache(true)(obj.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	return out.(*unstructured.Unstructured)
}

// whole is a slim object unpacked.
func whole(t *testing.T, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out, err := Unpacked(u)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// converged is a StorageAccount as the apiserver holds it once Ready.
func converged() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "storage.azure.armature.dev/v20230501", "kind": "StorageAccount",
		"metadata": map[string]any{
			"name": "media", "namespace": "team-a", "uid": "u-1", "resourceVersion": "42", "generation": int64(2),
			"creationTimestamp": "2026-11-26T23:44:15Z", "labels": map[string]any{"armature.dev/shard": "a"},
			"finalizers": []any{core.Finalizer},
			"annotations": map[string]any{
				core.AnnotationPolicy: "manage", core.AnnotationLastApplied: `{"location":"westeurope"}`,
				core.AnnotationARMID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media",
				kubectlLastApplied:   `{"big":true}`,
			},
			"ownerReferences": []any{map[string]any{"apiVersion": "resources.azure.armature.dev/v20240301", "kind": "ResourceGroup", "name": "rg", "uid": "u-rg"}},
			"managedFields": []any{
				map[string]any{"manager": "kubectl", "operation": "Apply", "apiVersion": "storage.azure.armature.dev/v20230101", "time": "2026-11-26T23:44:16Z",
					"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{"f:location": map[string]any{}}}},
				map[string]any{"manager": "armature", "operation": "Update", "apiVersion": "storage.azure.armature.dev/v20230501", "time": "2026-11-26T23:44:17Z",
					"subresource": "status", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:status": map[string]any{"f:id": map[string]any{}}}},
			},
		},
		"spec": map[string]any{"owner": map[string]any{"name": "rg"}, "location": "westeurope", "sku": map[string]any{"name": "Standard_LRS"}},
		"status": map[string]any{
			"id":                 "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media",
			"observedGeneration": int64(2), "lastOperation": "PUT sha256:0123",
			"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Succeeded", "message": "", "observedGeneration": int64(2), "lastTransitionTime": "2026-11-26T23:44:17Z"}},
			"location":   "westeurope", "properties": map[string]any{"accessTier": "Hot", "count": int64(3), "ratio": 0.5},
		},
	}}
}

// TestSlimRoundTrip: a slim object keeps decoded only apiVersion, kind,
// the metadata predicates read and its summary strings (the status digest
// among them); unpacked, it is
// the object as the apiserver holds it but for what the cache never keeps
// (kubectl's copy, field sets, status's ARM body: a digest stands for it),
// integers still int64.
func TestSlimRoundTrip(t *testing.T) {
	obj := converged()
	slim := slimmed(t, obj)

	wantKept := map[string]any{
		"apiVersion": "storage.azure.armature.dev/v20230501", "kind": "StorageAccount",
		"metadata": map[string]any{
			"name": "media", "namespace": "team-a", "uid": "u-1", "resourceVersion": "42", "generation": int64(2),
			"creationTimestamp": "2026-11-26T23:44:15Z", "labels": map[string]any{"armature.dev/shard": "a"},
			"finalizers": []any{core.Finalizer}, "annotations": map[string]any{core.AnnotationPolicy: "manage",
				// Kept decoded: the claim index reads it.
				core.AnnotationARMID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media"},
		},
		slimID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media", slimReady: "True", slimOwner: "//rg", slimSecrets: core.CredentialSecret,
	}
	kept := map[string]any{}
	if d, _ := slim.Object[slimStatus].(string); d == "" {
		t.Errorf("no status digest (%s) on the slim object", slimStatus)
	} else {
		wantKept[slimStatus] = d
	}
	for k, v := range slim.Object {
		if k != packedKey {
			kept[k] = v
		}
	}
	if d := cmp.Diff(wantKept, kept); d != "" {
		t.Errorf("decoded part of the slim object (-want +got):\n%s", d)
	}

	want := converged().Object
	md := want["metadata"].(map[string]any)
	delete(md["annotations"].(map[string]any), kubectlLastApplied)
	md["managedFields"] = []any{map[string]any{"manager": "kubectl", "operation": "Apply", "apiVersion": "storage.azure.armature.dev/v20230101",
		"time": "2026-11-26T23:44:16Z", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{}}}}
	status := want["status"].(map[string]any)
	status[statusDigest] = encodeDigest(digest(map[string]any{"id": status["id"], "location": "westeurope", "properties": status["properties"]}))
	delete(status, "location")
	delete(status, "properties")
	got := whole(t, slim)
	if d := cmp.Diff(want, got.Object); d != "" {
		t.Errorf("unpacked (-want +got):\n%s", d)
	}
	if v := specWriterVersion(got.GetManagedFields(), "storage.azure.armature.dev"); v != "v20230101" {
		t.Errorf("spec written in %q after the transform, want v20230101", v)
	}

	// Unpacking never changes the cache's object, and a slim object is not
	// slimmed twice.
	before := slim.DeepCopy()
	got.Object["metadata"].(map[string]any)["annotations"].(map[string]any)["x"] = "y"
	got.Object["spec"].(map[string]any)["location"] = "northeurope"
	if d := cmp.Diff(before.Object, slim.Object); d != "" {
		t.Errorf("the cache's object changed (-before +after):\n%s", d)
	}
	again, _ := TransformForCache(true)(slim)
	if d := cmp.Diff(before.Object, again.(*unstructured.Unstructured).Object); d != "" {
		t.Errorf("transformed twice (-once +twice):\n%s", d)
	}
	if u := (&unstructured.Unstructured{Object: map[string]any{"kind": "X"}}); must(Unpacked(u)) != u {
		t.Error("an object that is not slim is its own unpacked form")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestSlimSummary: what predicates, handlers and indexes read of the
// informer's objects reads alike on slim and whole objects.
func TestSlimSummary(t *testing.T) {
	notReady := converged()
	notReady.Object["status"].(map[string]any)["conditions"].([]any)[0].(map[string]any)["status"] = "False"
	ext := converged()
	ext.Object["spec"].(map[string]any)["owner"] = map[string]any{"group": "storage.azure.armature.dev", "kind": "StorageAccount", "name": "media"}
	bare := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v", "kind": "K", "metadata": map[string]any{"name": "n"}, "spec": map[string]any{}}}
	for name, obj := range map[string]*unstructured.Unstructured{"ready": converged(), "not ready": notReady, "extension owner": ext, "new": bare} {
		slim := slimmed(t, obj)
		if _, ok := slim.Object[packedKey]; !ok {
			t.Fatalf("%s: not packed", name)
		}
		if ready(slim) != ready(obj) || statusID(slim) != statusID(obj) {
			t.Errorf("%s: slim ready %v id %q, whole %v %q", name, ready(slim), statusID(slim), ready(obj), statusID(obj))
		}
		g1, k1, n1 := specOwner(slim)
		g2, k2, n2 := specOwner(obj)
		if g1 != g2 || k1 != k2 || n1 != n2 {
			t.Errorf("%s: slim owner %s/%s/%s, whole %s/%s/%s", name, g1, k1, n1, g2, k2, n2)
		}
	}
	if !ReadinessChanged(slimmed(t, converged()), slimmed(t, notReady)) || ReadinessChanged(slimmed(t, converged()), slimmed(t, converged())) {
		t.Error("ReadinessChanged on slim objects")
	}
}

// TestCacheReader: Get and List through CacheReader return slim objects
// whole; other objects pass as they are.
func TestCacheReader(t *testing.T) {
	gvk, s := storageAccountScheme()
	slim := slimmed(t, converged())
	slim.SetResourceVersion("")
	c := CacheReader(fake.NewClientBuilder().WithScheme(s).WithObjects(slim).Build())
	if CacheReader(c) != c {
		t.Error("wrapping twice wraps again")
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(gvk)
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "team-a", Name: "media"}, got); err != nil {
		t.Fatal(err)
	}
	if loc, _, _ := unstructured.NestedString(got.Object, "spec", "location"); loc != "westeurope" || got.Object[packedKey] != nil || statusID(got) == "" {
		t.Errorf("Get: %v", got.Object)
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind("StorageAccountList"))
	if err := c.List(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Object[packedKey] != nil || !ready(&list.Items[0]) || len(conditions(&list.Items[0])) != 1 {
		t.Errorf("List: %v", list.Items)
	}
}

// TestTransformKeepsVersionWithoutSlim: without slim (compositions read
// status) only field sets and kubectl's copy go.
func TestTransformKeepsVersionWithoutSlim(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetAnnotations(map[string]string{kubectlLastApplied: `{"big":true}`, core.AnnotationLastApplied: "{}"})
	t1, t2 := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	u.SetManagedFields([]metav1.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "storage.azure.armature.dev/v20230101", Time: &t2, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:location":{},"f:properties":{"f:accessTier":{}}}}`)}},
		{Manager: "armature", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "storage.azure.armature.dev/v20230501", Time: &t1, Subresource: "status", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:id":{}}}`)}},
	})
	_ = unstructured.SetNestedField(u.Object, "Hot", "status", "properties", "accessTier")
	out, err := TransformForCache(false)(u)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*unstructured.Unstructured)
	if _, ok := got.GetAnnotations()[kubectlLastApplied]; ok || got.GetAnnotations()[core.AnnotationLastApplied] != "{}" || got.Object[packedKey] != nil {
		t.Errorf("annotations %v", got.GetAnnotations())
	}
	if tier, _, _ := unstructured.NestedString(got.Object, "status", "properties", "accessTier"); tier != "Hot" {
		t.Error("status is kept whole without slim")
	}
	mf := got.GetManagedFields()
	if len(mf) != 1 || string(mf[0].FieldsV1.Raw) != `{"f:spec":{}}` {
		t.Errorf("managedFields %+v", mf)
	}
	if v := specWriterVersion(mf, "storage.azure.armature.dev"); v != "v20230101" {
		t.Errorf("spec written in %q after the transform, want v20230101", v)
	}
}

// TestStatusDigest: the cache keeps a digest of status's ARM body, and the
// same body read again from ARM (ints as floats, unknown members and nulls
// normalized away) digests the same; a changed member does not; the
// digest answers what the status held at a path.
func TestStatusDigest(t *testing.T) {
	d := &descriptor.Descriptor{Properties: []descriptor.Property{
		{Path: descriptor.P("id"), Class: descriptor.ReadOnly},
		{Path: descriptor.P("properties"), Class: descriptor.Writable},
		{Path: descriptor.P("properties", "count"), Class: descriptor.Writable},
		{Path: descriptor.P("properties", "tier"), Class: descriptor.Writable},
	}}
	stored := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{
		"id": "/x", "properties": map[string]any{"count": int64(3), "tier": "Hot"},
		"observedGeneration": int64(2), "conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
	}}}
	out := whole(t, slimmed(t, stored))
	status := out.Object["status"].(map[string]any)
	if _, ok := status["properties"]; ok || status["id"] != "/x" || status["observedGeneration"] != int64(2) || status[statusDigest] == nil {
		t.Fatalf("cached status %v", status)
	}
	live := normalize(d, map[string]any{"id": "/x", "properties": map[string]any{"count": float64(3), "tier": "Hot", "unknown": float64(1), "nothing": nil}, "etag": nil})
	if !sameDigest(digest(live), digestOf(status)) || changed(out, live) {
		t.Errorf("the same body read again must digest alike: %v vs %v", digest(live), digestOf(status))
	}
	if !unchangedSince(status, descriptor.P("properties", "tier"), live) || unchangedSince(status, descriptor.P("properties", "other"), map[string]any{"properties": map[string]any{"other": "x"}}) {
		t.Error("unchangedSince reads the digest by path")
	}
	live["properties"].(map[string]any)["tier"] = "Cool"
	if sameDigest(digest(live), digestOf(status)) || !changed(out, live) {
		t.Error("a changed member must show")
	}
	if unchangedSince(status, descriptor.P("properties", "tier"), live) {
		t.Error("a changed value is not unchanged")
	}
	if got := decodeDigest("not base64!"); len(got) != 0 {
		t.Errorf("an unreadable digest is empty, got %v", got)
	}
}
