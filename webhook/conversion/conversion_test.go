package conversion_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/webhook/conversion"
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

// TestRoundTripEveryKind: for every kind served in several versions,
// random objects built from the source version's property table survive
// source → target → source unchanged.
func TestRoundTripEveryKind(t *testing.T) {
	descs := apis.Descriptors()
	c := conversion.New(descs)
	kinds := 0
	for _, d := range descs {
		for _, v := range d.Versions {
			if v == d.Version {
				continue
			}
			kinds++
			t.Run(fmt.Sprintf("%s_%s_to_%s", d.Kind, d.Version, v), func(t *testing.T) {
				rng := rand.New(rand.NewSource(int64(len(d.Kind) + len(v))))
				for i := 0; i < 100; i++ {
					in := randomObject(rng, d)
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
			})
		}
	}
	if kinds == 0 {
		t.Skip("no kind is served in several versions (specs/armature.yaml names one api-version per provider)")
	}
}

// randomObject fills about half of the leaves of d's property table with
// values of their JSON type: spec gets the writable and createOnly ones,
// status the readOnly ones.
func randomObject(rng *rand.Rand, d *descriptor.Descriptor) *unstructured.Unstructured {
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
		set(target, strings.Split(strings.ReplaceAll(p.Path, "[*]", ".[*]"), "."), value(rng, p.Type))
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": d.Group + "/" + d.Version, "kind": d.Kind,
		"metadata": map[string]any{"name": "r", "namespace": "n"}, "spec": spec, "status": status}}
}

func set(obj map[string]any, segs []string, v any) {
	key := segs[0]
	if key == "*" {
		key = "k1"
	}
	if len(segs) == 1 {
		obj[key] = v
		return
	}
	if segs[1] == "[*]" {
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
