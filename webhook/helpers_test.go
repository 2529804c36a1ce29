package webhook

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/armature-dev/armature/generated/apis"
	compute "github.com/armature-dev/armature/generated/apis/compute/v20240301"
	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// allDescriptors returns the Descriptors of every generated package.
func allDescriptors() []*descriptor.Descriptor { return apis.Descriptors() }

// The GVKs the tests use most.
var (
	storageAccountGVK = storage.StorageAccountDescriptor.GroupVersionKind()
	vmssGVK           = compute.VirtualMachineScaleSetDescriptor.GroupVersionKind()
)

// storageAccountJSON is a realistic StorageAccount, as the apiserver sends it.
const storageAccountJSON = `{
  "apiVersion": "storage.azure.armature.dev/v20230501",
  "kind": "StorageAccount",
  "metadata": {"name": "media", "namespace": "team-a", "uid": "0b9f0a52-1f0e-4c53-9d0e-1d1a0e6d8f41",
    "resourceVersion": "4711", "generation": 3, "creationTimestamp": "2025-01-01T00:00:00Z",
    "labels": {"app": "media"}, "finalizers": ["armature.dev/finalizer"],
    "annotations": {"armature.dev/last-applied": "{\"location\":\"westeurope\"}"}},
  "spec": {
    "azureName": "media",
    "owner": {"name": "team-a-rg"},
    "location": "westeurope",
    "kind": "StorageV2",
    "sku": {"name": "Standard_GRS"},
    "tags": {"team": "a", "cost-center": "4711"},
    "identity": {"type": "SystemAssigned"},
    "properties": {
      "accessTier": "Hot",
      "minimumTlsVersion": "TLS1_2",
      "allowBlobPublicAccess": false,
      "supportsHttpsTrafficOnly": true,
      "isHnsEnabled": true,
      "encryption": {"keySource": "Microsoft.Storage",
        "services": {"blob": {"enabled": true, "keyType": "Account"}, "file": {"enabled": true, "keyType": "Account"}}},
      "networkAcls": {"bypass": "AzureServices", "defaultAction": "Deny",
        "ipRules": [{"value": "203.0.113.0/24", "action": "Allow"}],
        "virtualNetworkRules": [{"id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/team-a-rg/providers/Microsoft.Network/virtualNetworks/net/subnets/default"}]}
    }
  },
  "status": {}
}`

// vmssJSON is a VirtualMachineScaleSet with named network interface
// configurations, unnamed ipTags, zones and a Secret reference.
const vmssJSON = `{
  "apiVersion": "compute.azure.armature.dev/v20240301",
  "kind": "VirtualMachineScaleSet",
  "metadata": {"name": "web", "namespace": "team-a"},
  "spec": {
    "azureName": "web",
    "owner": {"name": "team-a-rg"},
    "location": "westeurope",
    "zones": ["1"],
    "sku": {"name": "Standard_D2s_v3", "capacity": 3},
    "properties": {
      "virtualMachineProfile": {
        "osProfile": {"computerNamePrefix": "web", "adminUsername": "azureuser",
          "adminPassword": {"name": "web-secrets", "key": "adminPassword"}},
        "networkProfile": {"networkInterfaceConfigurations": [
          {"name": "nic-a", "properties": {"primary": true, "ipConfigurations": [
            {"name": "ip-a", "properties": {"publicIPAddressConfiguration": {"name": "pip-a",
              "sku": {"name": "Basic"},
              "properties": {"ipTags": [{"ipTagType": "RoutingPreference", "tag": "Internet"}]}}}}]}},
          {"name": "nic-b", "properties": {"ipConfigurations": [
            {"name": "ip-b", "properties": {"publicIPAddressConfiguration": {"name": "pip-b",
              "sku": {"name": "Basic"}}}}]}}
        ]}
      }
    }
  }
}`

// object decodes a JSON fixture as the handlers do.
func object(t testing.TB, s string) map[string]any {
	t.Helper()
	obj, err := decodeObject([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// edit is a change to a decoded object.
type edit func(t testing.TB, obj map[string]any)

// set returns an edit setting path (dots, [i] for array items) to value.
// The value is a JSON text.
func set(path, value string) edit {
	return func(t testing.TB, obj map[string]any) {
		t.Helper()
		var v any
		if err := decodeJSON([]byte(value), &v); err != nil {
			t.Fatalf("set %s: %v", path, err)
		}
		parent, last := walkTo(t, obj, path, true)
		assign(t, parent, last, v)
	}
}

// del returns an edit removing path.
func del(path string) edit {
	return func(t testing.TB, obj map[string]any) {
		t.Helper()
		parent, last := walkTo(t, obj, path, false)
		m, ok := parent.(map[string]any)
		if !ok {
			t.Fatalf("del %s: parent is not an object", path)
		}
		delete(m, last)
	}
}

// walkTo returns the container of the last segment of path.
func walkTo(t testing.TB, obj map[string]any, path string, create bool) (any, string) {
	t.Helper()
	segs := testSegments(path)
	var cur any = obj
	for _, s := range segs[:len(segs)-1] {
		next, ok := index(cur, s)
		if !ok {
			if !create {
				t.Fatalf("%s: no %s", path, s)
			}
			next = map[string]any{}
			assign(t, cur, s, next)
		}
		cur = next
	}
	return cur, segs[len(segs)-1]
}

// testSegments splits a.b[1].c into a, b, [1], c.
func testSegments(path string) []string {
	var out []string
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		out = append(out, name)
		for rest != "" {
			var idx string
			idx, rest, _ = strings.Cut(rest, "]")
			out = append(out, "["+idx+"]")
			rest = strings.TrimPrefix(rest, "[")
		}
	}
	return out
}

func index(cur any, seg string) (any, bool) {
	if strings.HasPrefix(seg, "[") {
		i, _ := strconv.Atoi(strings.Trim(seg, "[]"))
		a, _ := cur.([]any)
		if i < len(a) {
			return a[i], true
		}
		return nil, false
	}
	return lookup(cur, seg)
}

func assign(t testing.TB, cur any, seg string, v any) {
	t.Helper()
	if strings.HasPrefix(seg, "[") {
		i, _ := strconv.Atoi(strings.Trim(seg, "[]"))
		a, _ := cur.([]any)
		if i >= len(a) {
			t.Fatalf("index %d out of range", i)
		}
		a[i] = v
		return
	}
	m, ok := cur.(map[string]any)
	if !ok {
		t.Fatalf("cannot set %s on %T", seg, cur)
	}
	m[seg] = v
}

// build decodes fixture and applies edits.
func build(t testing.TB, fixture string, edits ...edit) map[string]any {
	t.Helper()
	obj := object(t, fixture)
	for _, e := range edits {
		e(t, obj)
	}
	return obj
}

// request builds an admission request.
func request(t testing.TB, op admissionv1.Operation, gvk schema.GroupVersionKind, obj, old map[string]any) admission.Request {
	t.Helper()
	raw := func(m map[string]any) runtime.RawExtension {
		if m == nil {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "uid",
		Kind:      metav1.GroupVersionKind(gvk),
		Operation: op,
		Name:      str(obj["metadata"], "name"),
		Namespace: str(obj["metadata"], "namespace"),
		Object:    raw(obj),
		OldObject: raw(old),
	}}
}

// verdict renders a validation response as its causes, "field: body" each;
// nil when allowed.
func verdict(t testing.TB, resp admission.Response) []string {
	t.Helper()
	if resp.Allowed {
		return nil
	}
	if resp.Result == nil || resp.Result.Details == nil {
		return []string{fmt.Sprintf("refused without causes: %+v", resp.Result)}
	}
	var out []string
	for _, c := range resp.Result.Details.Causes {
		out = append(out, c.Field+": "+c.Message)
	}
	return out
}
