package webhook

import (
	"context"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/armature-dev/armature/runtime/action"
)

func actionRequest(op admissionv1.Operation, obj, old string) admission.Request {
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, Name: "rotate", Namespace: "team-a",
		Kind:   metav1.GroupVersionKind{Group: "actions.azure.armature.dev", Version: "v1alpha1", Kind: "Action"},
		Object: runtime.RawExtension{Raw: []byte(obj)},
	}}
	if old != "" {
		req.OldObject = runtime.RawExtension{Raw: []byte(old)}
	}
	return req
}

func actionJSON(spec string) string {
	return `{"apiVersion":"actions.azure.armature.dev/v1alpha1","kind":"Action","metadata":{"name":"rotate","namespace":"team-a"},"spec":` + spec + `}`
}

func TestActionValidatingHandler(t *testing.T) {
	h := ActionValidatingHandler(action.NewRegistry(allDescriptors()))
	const regen = `{"target":{"kind":"StorageAccount","name":"media"},"action":"regenerateKey","parameters":{"keyName":"key1"}}`
	cases := map[string]struct {
		reason string
		op     admissionv1.Operation
		obj    string
		old    string
		// want are substrings of the refusal; none means allowed.
		want   []string
		status int32
	}{
		"Valid":         {reason: "a valid regenerateKey", op: admissionv1.Create, obj: actionJSON(regen)},
		"UnknownAction": {reason: "the field and the valid actions", op: admissionv1.Create, obj: actionJSON(`{"target":{"kind":"StorageAccount","name":"media"},"action":"rotateKeys"}`), status: 422, want: []string{`spec.action: Unsupported value: "rotateKeys": supported values:`, `"regenerateKey"`, `"listKeys"`}},
		"MissingMember": {reason: "a missing required member", op: admissionv1.Create, obj: actionJSON(`{"target":{"kind":"StorageAccount","name":"media"},"action":"regenerateKey","parameters":{"keyname":"key1"}}`), status: 422, want: []string{"spec.parameters.keyName: Required value", "spec.parameters.keyname: Forbidden: unknown field"}},
		"NotGenerated":  {reason: "a kind that is not generated", op: admissionv1.Create, obj: actionJSON(`{"target":{"kind":"StatefulSet","group":"apps","name":"web"},"action":"restart"}`), status: 422, want: []string{`spec.target.kind: Invalid value: "StatefulSet"`}},
		"SpecChanged":   {reason: "an Action is one-shot", op: admissionv1.Update, obj: actionJSON(`{"target":{"kind":"StorageAccount","name":"media"},"action":"regenerateKey","parameters":{"keyName":"key2"}}`), old: actionJSON(regen), status: 422, want: []string{"spec: Forbidden: is immutable"}},
		"SameSpec":      {reason: "metadata updates go through (parameters compared as JSON)", op: admissionv1.Update, obj: actionJSON(`{"target":{"kind":"StorageAccount","name":"media"},"action":"regenerateKey","parameters":{ "keyName" : "key1" }}`), old: actionJSON(regen)},
		"Undecodable":   {reason: "a body that does not decode", op: admissionv1.Create, obj: `{"spec":`, status: http.StatusBadRequest},
		"Delete":        {reason: "deletes are not checked", op: admissionv1.Delete, obj: `{}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resp := h.Handle(context.Background(), actionRequest(tc.op, tc.obj, tc.old))
			if tc.status == 0 {
				if !resp.Allowed {
					t.Fatalf("%s: refused: %v", tc.reason, resp.Result)
				}
				return
			}
			if resp.Allowed || resp.Result == nil || resp.Result.Code != tc.status {
				t.Fatalf("%s: want a refusal with %d, got %+v", tc.reason, tc.status, resp.Result)
			}
			for _, w := range tc.want {
				if !strings.Contains(resp.Result.Message, w) {
					t.Errorf("%s: message %q lacks %q", tc.reason, resp.Result.Message, w)
				}
			}
		})
	}
}

func TestActionValidatingWebhook(t *testing.T) {
	w := ActionValidatingWebhook(WithURL("https://127.0.0.1:9443"))
	if *w.ClientConfig.URL != "https://127.0.0.1:9443"+ActionValidatePath || w.Rules[0].Resources[0] != "actions" || w.Rules[0].APIGroups[0] != "actions.azure.armature.dev" {
		t.Errorf("webhook entry: %+v", w)
	}
}
