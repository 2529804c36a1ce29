package reconciler

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/api/core"
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
			obj.SetAnnotations(map[string]string{core.AnnotationAPIVersion: c.ann})
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
