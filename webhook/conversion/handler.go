package conversion

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Path is where the operator serves the conversion webhook; the CRDs'
// spec.conversion.webhook points there.
const Path = "/convert"

// maxReview bounds a ConversionReview body (the apiserver sends at most a
// list page of objects).
const maxReview = 64 << 20

// ServeHTTP answers a ConversionReview (apiextensions.k8s.io/v1).
func (c *Converter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReview))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var review apiextv1.ConversionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("not a ConversionReview: %v", err), http.StatusBadRequest)
		return
	}
	review.Response = c.Review(review.Request)
	review.Request = nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&review)
}

// Review converts the objects of one ConversionRequest.
func (c *Converter) Review(req *apiextv1.ConversionRequest) *apiextv1.ConversionResponse {
	resp := &apiextv1.ConversionResponse{UID: req.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	gv, err := schema.ParseGroupVersion(req.DesiredAPIVersion)
	if err != nil {
		return failed(resp, err)
	}
	for i, raw := range req.Objects {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw.Raw); err != nil {
			return failed(resp, fmt.Errorf("object %d: %w", i, err))
		}
		if obj.GroupVersionKind().Group != gv.Group {
			return failed(resp, fmt.Errorf("object %d is %s, not of group %s", i, obj.GetAPIVersion(), gv.Group))
		}
		out, err := c.Convert(obj, gv.Version)
		if err != nil {
			return failed(resp, fmt.Errorf("%s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err))
		}
		b, err := out.MarshalJSON()
		if err != nil {
			return failed(resp, err)
		}
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: b})
	}
	return resp
}

func failed(resp *apiextv1.ConversionResponse, err error) *apiextv1.ConversionResponse {
	resp.ConvertedObjects = nil
	resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
	return resp
}
