package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/runtime/action"
)

// The Action webhook: where its handler is served and its name in a
// validating configuration.
const (
	// ActionValidatePath is where the Action validating handler is served.
	ActionValidatePath = "/validate-armature-action"
	// ActionWebhookName names the Action validating webhook.
	ActionWebhookName = "validate-action.armature.dev"
)

const actionImmutableDetail = "is immutable: an Action runs once; create a new Action to run it again"

// ActionValidatingHandler returns the validating handler of Actions
// (actions.azure.armature.dev). On create it refuses, naming the field
// path, a target whose kind (or ARM id's type) is not one of reg's
// generated kinds, an action the kind does not have (listing those it
// has), parameters and query parameters that do not fit the action's
// schemas, and secret values given in the Action instead of
// secretParameters. On update it refuses any change of spec. Undecodable
// requests are answered 400.
func ActionValidatingHandler(reg *action.Registry) admission.Handler {
	return &actionHandler{reg: reg}
}

type actionHandler struct{ reg *action.Registry }

// Handle implements admission.Handler.
func (h *actionHandler) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	if req.Kind.Group != v1alpha1.GroupVersion.Group || req.Kind.Kind != "Action" {
		return admission.Denied(fmt.Sprintf(notServedMessage, req.Kind))
	}
	var a v1alpha1.Action
	if err := json.Unmarshal(req.Object.Raw, &a); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decode Action: %w", err))
	}
	gk := v1alpha1.GroupVersion.WithKind("Action").GroupKind()
	if req.Operation == admissionv1.Update {
		var old v1alpha1.Action
		if err := json.Unmarshal(req.OldObject.Raw, &old); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("decode old Action: %w", err))
		}
		if sameSpec(&old.Spec, &a.Spec) {
			return admission.Allowed("")
		}
		return invalid(gk, req.Name, field.ErrorList{field.Forbidden(field.NewPath("spec"), actionImmutableDetail)})
	}
	if _, _, errs := h.reg.Validate(&a.Spec); len(errs) > 0 {
		return invalid(gk, req.Name, errs)
	}
	return admission.Allowed("")
}

// sameSpec compares two specs, parameters as JSON values (not bytes).
func sameSpec(a, b *v1alpha1.ActionSpec) bool {
	ac, bc := a.DeepCopy(), b.DeepCopy()
	var ap, bp any
	if ac.Parameters != nil {
		_ = json.Unmarshal(ac.Parameters.Raw, &ap)
	}
	if bc.Parameters != nil {
		_ = json.Unmarshal(bc.Parameters.Raw, &bp)
	}
	ac.Parameters, bc.Parameters = nil, nil
	return reflect.DeepEqual(ap, bp) && reflect.DeepEqual(ac, bc)
}

// ActionValidatingWebhook is the webhook entry that sends every create and
// update of Actions to ActionValidatingHandler, with the settings of
// ValidatingWebhookConfiguration. Append it to that configuration's
// Webhooks when the Action CRD is installed.
func ActionValidatingWebhook(opts ...ConfigOption) admissionregistrationv1.ValidatingWebhook {
	o := configDefaults(opts)
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	equivalent := admissionregistrationv1.Equivalent
	scope := admissionregistrationv1.NamespacedScope
	return admissionregistrationv1.ValidatingWebhook{
		Name:         ActionWebhookName,
		ClientConfig: o.clientConfig(ActionValidatePath),
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{v1alpha1.GroupVersion.Group}, APIVersions: []string{v1alpha1.GroupVersion.Version},
				Resources: []string{"actions"}, Scope: &scope,
			},
		}},
		FailurePolicy:           &fail,
		MatchPolicy:             &equivalent,
		SideEffects:             &none,
		TimeoutSeconds:          &o.timeout,
		AdmissionReviewVersions: []string{"v1"},
	}
}
