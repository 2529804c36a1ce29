package conversion_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/webhook/conversion"
	"github.com/armature-dev/armature/webhook/conversion/conversiontest"
)

func account(version string, props map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "storage.azure.armature.dev/" + version, "kind": "StorageAccount",
		"metadata": map[string]any{"name": "media", "namespace": "team-a"},
		"spec": map[string]any{"azureName": "media01", "owner": map[string]any{"name": "rg"}, "location": "westeurope",
			"kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}, "properties": props},
		"status": map[string]any{"id": "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media01",
			"observedGeneration": int64(2), "properties": map[string]any{"provisioningState": "Succeeded", "enableExtendedGroups": true}},
	}}
}

// A property of 2023-05-01 that 2023-01-01 lacks goes into the annotation
// and comes back.
func TestNewerPropertyKeptThroughOlderVersion(t *testing.T) {
	c := conversion.New(apis.Descriptors())
	in := account("v20230501", map[string]any{"accessTier": "Hot", "enableExtendedGroups": true})
	old, err := c.Convert(in, "v20230101")
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(old.Object, "spec", "properties", "enableExtendedGroups"); found {
		t.Error("v20230101 has no properties.enableExtendedGroups: it must not be in the converted spec")
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(old.Object, "status", "properties", "enableExtendedGroups"); found {
		t.Error("nor in the converted status")
	}
	if got, _, _ := unstructured.NestedString(old.Object, "spec", "properties", "accessTier"); got != "Hot" {
		t.Errorf("accessTier is in both versions: got %q", got)
	}
	ann := old.GetAnnotations()[conversion.AnnotationPreserved]
	if !strings.Contains(ann, "enableExtendedGroups") {
		t.Fatalf("annotation %s = %q, want the preserved property", conversion.AnnotationPreserved, ann)
	}
	back, err := c.Convert(old, "v20230501")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Object, in.Object) {
		t.Errorf("round trip lost something:\n got %v\nwant %v", back.Object, in.Object)
	}
}

// A value set in the older version wins over a kept one of the same path:
// the user's latest write is what counts.
func TestWriteInOtherVersionWins(t *testing.T) {
	c := conversion.New(apis.Descriptors())
	old, err := c.Convert(account("v20230501", map[string]any{"enableExtendedGroups": true}), "v20230101")
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(old.Object, "Cool", "spec", "properties", "accessTier")
	back, err := c.Convert(old, "v20230501")
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(back.Object, "spec", "properties", "accessTier"); v != "Cool" {
		t.Errorf("accessTier = %q, want the edit made at v20230101", v)
	}
	if v, _, _ := unstructured.NestedBool(back.Object, "spec", "properties", "enableExtendedGroups"); !v {
		t.Error("enableExtendedGroups was lost on the way through v20230101")
	}
	if _, ok := back.GetAnnotations()[conversion.AnnotationPreserved]; ok {
		t.Error("nothing is left to keep: the annotation must be gone")
	}
}

func TestErrors(t *testing.T) {
	c := conversion.New(apis.Descriptors())
	if _, err := c.Convert(account("v20230501", nil), "v20990101"); err == nil || !strings.Contains(err.Error(), "not served in version v20990101") {
		t.Errorf("unknown target version: %v", err)
	}
	bad := account("v20230101", nil)
	bad.SetAnnotations(map[string]string{conversion.AnnotationPreserved: "{"})
	if _, err := c.Convert(bad, "v20230501"); err == nil || !strings.Contains(err.Error(), conversion.AnnotationPreserved) {
		t.Errorf("a broken annotation must be named: %v", err)
	}
}

func TestReview(t *testing.T) {
	c := conversion.New(apis.Descriptors())
	raw, _ := json.Marshal(account("v20230501", map[string]any{"enableExtendedGroups": true}).Object)
	resp := c.Review(&apiextv1.ConversionRequest{UID: "u1", DesiredAPIVersion: "storage.azure.armature.dev/v20230101", Objects: []runtime.RawExtension{{Raw: raw}}})
	if resp.UID != "u1" || resp.Result.Status != "Success" || len(resp.ConvertedObjects) != 1 {
		t.Fatalf("response %+v", resp)
	}
	if !strings.Contains(string(resp.ConvertedObjects[0].Raw), `"apiVersion":"storage.azure.armature.dev/v20230101"`) {
		t.Errorf("converted object %s", resp.ConvertedObjects[0].Raw)
	}
	resp = c.Review(&apiextv1.ConversionRequest{UID: "u2", DesiredAPIVersion: "keyvault.azure.armature.dev/v20230701", Objects: []runtime.RawExtension{{Raw: raw}}})
	if resp.Result.Status != "Failure" || !strings.Contains(resp.Result.Message, "not of group") {
		t.Errorf("cross-group conversion must fail: %+v", resp.Result)
	}
}

// TestRoundTripEveryKind: every kind served in several versions survives
// source → target → source unchanged, from each of its versions (the
// generated packages hold the same test per kind).
func TestRoundTripEveryKind(t *testing.T) {
	descs := apis.Descriptors()
	kinds := 0
	for _, d := range descs {
		if len(d.Versions) < 2 {
			continue
		}
		kinds++
		t.Run(d.Kind+"_"+d.Version, func(t *testing.T) {
			conversiontest.RoundTrip(t, descs, d.GroupVersionKind(), 100)
		})
	}
	if kinds == 0 {
		t.Skip("no kind is served in several versions (specs/armature.yaml names one api-version per provider)")
	}
}
