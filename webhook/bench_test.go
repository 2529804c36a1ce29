package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// managedFields is what kubectl apply and the operator add to every stored
// object: part of the request the handlers decode.
const managedFields = `[
 {"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"storage.azure.armature.dev/v20230501","time":"2025-01-01T00:00:00Z","fieldsType":"FieldsV1",
  "fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{}}},
   "f:spec":{".":{},"f:azureName":{},"f:identity":{".":{},"f:type":{}},"f:kind":{},"f:location":{},"f:owner":{".":{},"f:name":{}},
    "f:properties":{".":{},"f:accessTier":{},"f:allowBlobPublicAccess":{},"f:encryption":{".":{},"f:keySource":{},"f:services":{".":{},"f:blob":{".":{},"f:enabled":{},"f:keyType":{}},"f:file":{".":{},"f:enabled":{},"f:keyType":{}}}},
     "f:isHnsEnabled":{},"f:minimumTlsVersion":{},"f:networkAcls":{".":{},"f:bypass":{},"f:defaultAction":{},"f:ipRules":{},"f:virtualNetworkRules":{}},"f:supportsHttpsTrafficOnly":{}},
    "f:sku":{".":{},"f:name":{}},"f:tags":{".":{},"f:cost-center":{},"f:team":{}}}}},
 {"manager":"armature","operation":"Update","apiVersion":"storage.azure.armature.dev/v20230501","time":"2025-01-01T00:05:00Z","fieldsType":"FieldsV1","subresource":"status",
  "fieldsV1":{"f:status":{".":{},"f:conditions":{".":{},"k:{\"type\":\"Ready\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:observedGeneration":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:id":{},"f:observedGeneration":{},"f:properties":{".":{},"f:primaryEndpoints":{".":{},"f:blob":{},"f:dfs":{},"f:web":{}},"f:provisioningState":{}}}}}
]`

// statusJSON is a realistic status: the last GET from ARM.
const statusJSON = `{"id":"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/team-a-rg/providers/Microsoft.Storage/storageAccounts/media",
 "observedGeneration":3,"conditions":[{"type":"Ready","status":"True","reason":"Succeeded","message":"","observedGeneration":3,"lastTransitionTime":"2025-01-01T00:05:00Z"}],
 "location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_GRS","tier":"Standard"},
 "properties":{"provisioningState":"Succeeded","creationTime":"2025-01-01T00:01:00Z","primaryLocation":"westeurope","secondaryLocation":"northeurope","statusOfPrimary":"available",
  "primaryEndpoints":{"blob":"https://media.blob.core.windows.net/","dfs":"https://media.dfs.core.windows.net/","web":"https://media.z6.web.core.windows.net/"}}}`

// BenchmarkAdmission times the handlers in-process over a realistic
// StorageAccount (managedFields, status) and reports p50 and p99 latency
// per request. The http cases go through controller-runtime's
// admission.Webhook, AdmissionReview decoding and encoding included.
func BenchmarkAdmission(b *testing.B) {
	reg := New(allDescriptors())
	withMeta := set("metadata.managedFields", managedFields)
	stored := build(b, storageAccountJSON, withMeta, set("status", statusJSON))
	created := build(b, storageAccountJSON, withMeta, del("spec.azureName"))
	writable := build(b, storageAccountJSON, withMeta, set("status", statusJSON), set("spec.properties.accessTier", `"Cool"`), set("spec.tags.team", `"b"`))
	createOnly := build(b, storageAccountJSON, withMeta, set("status", statusJSON), set("spec.location", `"northeurope"`))

	cases := []struct {
		name    string
		h       admission.Handler
		req     admission.Request
		allowed bool
	}{
		{"validate/create", reg.ValidatingHandler(), request(b, admissionv1.Create, storageAccountGVK, created, nil), true},
		{"validate/update-writable", reg.ValidatingHandler(), request(b, admissionv1.Update, storageAccountGVK, writable, stored), true},
		{"validate/update-createOnly", reg.ValidatingHandler(), request(b, admissionv1.Update, storageAccountGVK, createOnly, stored), false},
		{"default/create", reg.DefaultingHandler(), request(b, admissionv1.Create, storageAccountGVK, created, nil), true},
		{"default/update", reg.DefaultingHandler(), request(b, admissionv1.Update, storageAccountGVK, writable, stored), true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			if got := tc.h.Handle(context.Background(), tc.req); got.Allowed != tc.allowed {
				b.Fatalf("allowed = %v, want %v: %+v", got.Allowed, tc.allowed, got.Result)
			}
			measure(b, func() { tc.h.Handle(context.Background(), tc.req) })
		})
	}
	for _, tc := range cases {
		if tc.name != "validate/update-writable" && tc.name != "default/create" {
			continue
		}
		b.Run("http/"+tc.name, func(b *testing.B) {
			wh := &admission.Webhook{Handler: tc.h}
			review, err := json.Marshal(admissionv1.AdmissionReview{
				TypeMeta: metaReview, Request: &tc.req.AdmissionRequest,
			})
			if err != nil {
				b.Fatal(err)
			}
			measure(b, func() {
				r := httptest.NewRequest(http.MethodPost, ValidatePath, bytes.NewReader(review))
				r.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				wh.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			})
		})
	}
}

// metaReview is the type of an AdmissionReview.
var metaReview = metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}

// measure runs fn b.N times, timing each call, and reports the p50 and p99
// latency in microseconds.
func measure(b *testing.B, fn func()) {
	b.ReportAllocs()
	var durs []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		fn()
		durs = append(durs, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	pct := func(p float64) float64 {
		return float64(durs[int(p*float64(len(durs)-1))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}
