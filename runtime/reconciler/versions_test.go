package reconciler

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/runtime/descriptor"
)

func entry(version, sub string, at int, fields string) metav1.ManagedFieldsEntry {
	t := metav1.NewTime(time.Unix(int64(at), 0))
	return metav1.ManagedFieldsEntry{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "storage.azure.armature.dev/" + version,
		Time: &t, Subresource: sub, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

func TestVersionFor(t *testing.T) {
	newer := &Reconciler{Desc: &descriptor.Descriptor{Group: "storage.azure.armature.dev", Version: "v20230501", APIVersion: "2023-05-01"}}
	older := &Reconciler{Desc: &descriptor.Descriptor{Group: "storage.azure.armature.dev", Version: "v20230101", APIVersion: "2023-01-01"}}
	newer.versions = map[string]*Reconciler{"v20230101": older}
	spec := `{"f:spec":{"f:location":{}}}`
	for name, c := range map[string]struct {
		ann     string
		entries []metav1.ManagedFieldsEntry
		want    string
	}{
		"nothing known: the storage version": {want: "v20230501"},
		"spec written at the older version":  {entries: []metav1.ManagedFieldsEntry{entry("v20230101", "", 10, spec)}, want: "v20230101"},
		"latest spec write wins": {entries: []metav1.ManagedFieldsEntry{
			entry("v20230101", "", 10, spec), entry("v20230501", "", 20, spec)}, want: "v20230501"},
		"status and metadata writes do not count": {entries: []metav1.ManagedFieldsEntry{
			entry("v20230101", "", 10, spec), entry("v20230501", "status", 30, `{"f:status":{}}`), entry("v20230501", "", 40, `{"f:metadata":{"f:finalizers":{}}}`)}, want: "v20230101"},
		"annotation by Kubernetes version": {ann: "v20230101", entries: []metav1.ManagedFieldsEntry{entry("v20230501", "", 10, spec)}, want: "v20230101"},
		"annotation by api-version":        {ann: "2023-01-01", want: "v20230101"},
		"annotation naming the storage":    {ann: "2023-05-01", entries: []metav1.ManagedFieldsEntry{entry("v20230101", "", 10, spec)}, want: "v20230501"},
		"annotation unknown":               {ann: "2020-01-01", want: "2020-01-01"},
	} {
		newer.Config = Config{}
		obj := &unstructured.Unstructured{}
		if c.ann != "" {
			obj.SetAnnotations(map[string]string{AnnotationAPIVersion: c.ann})
		}
		obj.SetManagedFields(c.entries)
		if got := newer.versionFor(obj); got != c.want {
			t.Errorf("%s: versionFor = %s, want %s", name, got, c.want)
		}
	}
	// The configured preferred version applies only when the object says
	// nothing.
	newer.Config.PreferredVersions = map[string]string{"storage.azure.armature.dev": "v20230101"}
	if got := newer.versionFor(&unstructured.Unstructured{}); got != "v20230101" {
		t.Errorf("preferred version: versionFor = %s, want v20230101", got)
	}
	obj := &unstructured.Unstructured{}
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{entry("v20230501", "", 10, spec)})
	if got := newer.versionFor(obj); got != "v20230501" {
		t.Errorf("the version the spec was written in wins over the preferred one: got %s", got)
	}
}

// TestTransformForCacheKeepsVersion: the cache transform drops field sets
// and kubectl's copy, and the version a spec was written in still reads.
func TestTransformForCacheKeepsVersion(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"big":true}`, AnnotationLastApplied: "{}"})
	t1, t2 := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	u.SetManagedFields([]metav1.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "storage.azure.armature.dev/v20230101", Time: &t2, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:location":{},"f:properties":{"f:accessTier":{}}}}`)}},
		{Manager: "armature", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "storage.azure.armature.dev/v20230501", Time: &t1, Subresource: "status", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:id":{}}}`)}},
	})
	out, err := TransformForCache(true)(u)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*unstructured.Unstructured)
	if _, ok := got.GetAnnotations()["kubectl.kubernetes.io/last-applied-configuration"]; ok || got.GetAnnotations()[AnnotationLastApplied] != "{}" {
		t.Errorf("annotations %v", got.GetAnnotations())
	}
	mf := got.GetManagedFields()
	if len(mf) != 2 || string(mf[0].FieldsV1.Raw) != `{"f:spec":{}}` || mf[1].FieldsV1 != nil {
		t.Errorf("managedFields %+v", mf)
	}
	if v := specWriterVersion(mf, "storage.azure.armature.dev"); v != "v20230101" {
		t.Errorf("spec written in %q after the transform, want v20230101", v)
	}
}

// TestStatusDigest: the cache keeps a digest of status's ARM body, and the
// same body read again from ARM (ints as floats, unknown members and nulls
// normalized away) digests the same; a changed member does not.
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
	out, _ := TransformForCache(true)(stored)
	status := out.(*unstructured.Unstructured).Object["status"].(map[string]any)
	if _, ok := status["properties"]; ok || status["id"] != "/x" || status["observedGeneration"] != int64(2) || status[statusDigest] == nil {
		t.Fatalf("cached status %v", status)
	}
	live := normalize(d, map[string]any{"id": "/x", "properties": map[string]any{"count": float64(3), "tier": "Hot", "unknown": float64(1), "nothing": nil}, "etag": nil})
	if !sameDigest(digest(live), digestOf(status)) || changed(out.(*unstructured.Unstructured), live) {
		t.Errorf("the same body read again must digest alike: %v vs %v", digest(live), digestOf(status))
	}
	live["properties"].(map[string]any)["tier"] = "Cool"
	if sameDigest(digest(live), digestOf(status)) || !changed(out.(*unstructured.Unstructured), live) {
		t.Error("a changed member must show")
	}
}
