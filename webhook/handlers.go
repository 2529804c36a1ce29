package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/armature-dev/armature/api/core"
)

// Messages of refused requests that are not field errors.
const (
	notServedMessage = "kind %s is not served by the armature webhook: its webhook configuration and the served kinds disagree"
	defaulterMessage = "defaulting %s: %w"
)

// errNotObject is returned for a request body that is not a JSON object.
var errNotObject = errors.New("object is not a JSON object")

// Compile-time checks.
var (
	_ admission.Handler = (*validatingHandler)(nil)
	_ admission.Handler = (*defaultingHandler)(nil)
)

// ValidatingHandler returns the one validating admission handler for every
// kind the registry serves.
//
// On create and update it refuses values at read-only paths, values given
// where a Secret key reference belongs, an owner of the wrong ARM type, a
// resourceID of another ARM type and a singleton's wrong azureName. On
// update it also refuses any change, at any depth, of a create-only path
// (array items paired by name where they have one, else by index; presence
// changes count), and of azureName, owner and resourceID once status.id is
// set. Then the kind's custom rules run. An update that leaves spec
// unchanged is allowed without spec checks.
//
// A body that does not decode is answered 400; refusals carry every field
// error, with its path, in the message and as causes (reason Invalid, code
// 422).
func (r *Registry) ValidatingHandler() admission.Handler { return &validatingHandler{r: r} }

// DefaultingHandler returns the one defaulting admission handler for every
// kind the registry serves: spec.azureName from metadata.name (or the
// singleton name), the configured defaults (WithDefaults), then the kind's
// custom hooks; on create, the reconciler's finalizer when the object's
// reconcile policy needs one (manage, detach-on-delete: the operator would
// otherwise write it before anything else, an apiserver write per object).
// It answers with a JSON patch.
func (r *Registry) DefaultingHandler() admission.Handler { return &defaultingHandler{r: r} }

// validatingHandler implements ValidatingHandler.
type validatingHandler struct{ r *Registry }

// Handle implements admission.Handler.
func (h *validatingHandler) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	gvk := schema.GroupVersionKind(req.Kind)
	k, validators, _, _, ok := h.r.lookup(gvk)
	if !ok {
		return admission.Denied(fmt.Sprintf(notServedMessage, gvk))
	}
	// Custom rules see whole objects; the Descriptor's checks need only
	// metadata.name, spec and status.id.
	obj, old, err := decodeRequest(req, len(validators) == 0)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	errs := k.validate(req.Operation, obj, old)
	if len(validators) > 0 {
		a := attributes(req, k, obj, old)
		for _, fn := range validators {
			errs = append(errs, fn(ctx, a)...)
		}
	}
	if len(errs) == 0 {
		return admission.Allowed("")
	}
	return invalid(gvk.GroupKind(), req.Name, errs)
}

// defaultingHandler implements DefaultingHandler.
type defaultingHandler struct{ r *Registry }

// Handle implements admission.Handler.
func (h *defaultingHandler) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	gvk := schema.GroupVersionKind(req.Kind)
	k, _, defaulters, defs, ok := h.r.lookup(gvk)
	if !ok {
		return admission.Denied(fmt.Sprintf(notServedMessage, gvk))
	}
	if len(defaulters) == 0 {
		return defaultSpec(req, k, defs)
	}
	obj, old, err := decodeRequest(req, false)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	k.setDefaults(req.Operation, obj, old, defs)
	a := attributes(req, k, obj, old)
	for _, fn := range defaulters {
		if err := fn(ctx, a); err != nil {
			return admission.Errored(http.StatusInternalServerError, fmt.Errorf(defaulterMessage, gvk.Kind, err))
		}
	}
	if req.Operation == admissionv1.Create && needsFinalizer(a.Object.GetAnnotations(), a.Object.GetFinalizers()) {
		a.Object.SetFinalizers(append(a.Object.GetFinalizers(), core.Finalizer))
	}
	b, err := json.Marshal(a.Object.Object)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("encode defaulted object: %w", err))
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, b)
}

// defaultSpec is the defaulting handler without custom hooks: only spec
// can change, so only spec is decoded and diffed, not managedFields and
// status.
func defaultSpec(req admission.Request, k *kind, defs []pathDefault) admission.Response {
	var env specEnvelope
	if err := decodeEnvelope(req.Object.Raw, &env); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("object: %w", err))
	}
	obj := env.slim()
	var specRaw json.RawMessage
	if len(env.Spec) > 0 && !bytes.Equal(env.Spec, []byte("null")) {
		specRaw = env.Spec
		var spec any
		if err := decodeJSON(specRaw, &spec); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("object: spec: %w", err))
		}
		obj["spec"] = spec
	}
	var old map[string]any
	if req.Operation == admissionv1.Update {
		var err error
		if old, err = decodeSlim(req.OldObject.Raw); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("oldObject: %w", err))
		}
	}
	k.setDefaults(req.Operation, obj, old, defs)
	var finalizer []jsonpatch.JsonPatchOperation
	if req.Operation == admissionv1.Create && needsFinalizer(env.Metadata.Annotations, env.Metadata.Finalizers) {
		finalizer = []jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("add", "/metadata/finalizers/-", core.Finalizer)}
		if len(env.Metadata.Finalizers) == 0 {
			finalizer = []jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("add", "/metadata/finalizers", []string{core.Finalizer})}
		}
	}
	spec, ok := obj["spec"]
	if !ok {
		return patched(finalizer)
	}
	if specRaw == nil {
		return patched(append(finalizer, jsonpatch.NewOperation("add", "/spec", spec)))
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("encode defaulted spec: %w", err))
	}
	resp := admission.PatchResponseFromRaw(specRaw, b)
	for i := range resp.Patches {
		resp.Patches[i].Path = "/spec" + resp.Patches[i].Path
	}
	if len(finalizer) > 0 {
		resp = patched(append(finalizer, resp.Patches...))
	}
	return resp
}

// patched allows a request with these patches (none: unchanged).
func patched(ops []jsonpatch.JsonPatchOperation) admission.Response {
	if len(ops) == 0 {
		return admission.Allowed("")
	}
	return admission.Patched("", ops...)
}

// needsFinalizer reports whether a new object should get the reconciler's
// finalizer at admission: its reconcile policy needs one (an unknown policy
// gets none: the reconciler refuses it, and never means manage) and it has
// none yet.
func needsFinalizer(annotations map[string]string, finalizers []string) bool {
	p, err := core.PolicyOf(annotations)
	return err == nil && p.NeedsFinalizer() && !slices.Contains(finalizers, core.Finalizer)
}

// specEnvelope is the part of an object the Descriptor-driven checks and
// defaults read. Decoding into it skips managedFields and status.
type specEnvelope struct {
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
		Finalizers  []string          `json:"finalizers"`
	} `json:"metadata"`
	Spec   json.RawMessage `json:"spec"`
	Status struct {
		ID string `json:"id"`
	} `json:"status"`
}

// slim returns the envelope as the object map the checks read, without
// spec.
func (e *specEnvelope) slim() map[string]any {
	meta := map[string]any{"name": e.Metadata.Name}
	if p, ok := e.Metadata.Annotations[core.AnnotationPolicy]; ok {
		meta["annotations"] = map[string]any{core.AnnotationPolicy: p}
	}
	return map[string]any{"metadata": meta, "status": map[string]any{"id": e.Status.ID}}
}

// decodeEnvelope decodes a JSON object into env.
func decodeEnvelope(raw []byte, env *specEnvelope) error {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) > 0 && t[0] != '{' {
		return errNotObject
	}
	return decodeJSON(raw, env)
}

// decodeSlim decodes metadata.name, spec and status.id of an object.
func decodeSlim(raw []byte) (map[string]any, error) {
	var env specEnvelope
	if err := decodeEnvelope(raw, &env); err != nil {
		return nil, err
	}
	obj := env.slim()
	if len(env.Spec) > 0 {
		var spec any
		if err := decodeJSON(env.Spec, &spec); err != nil {
			return nil, fmt.Errorf("spec: %w", err)
		}
		if spec != nil {
			obj["spec"] = spec
		}
	}
	return obj, nil
}

// decodeRequest decodes the object, and the old object on update: whole,
// or slim (decodeSlim).
func decodeRequest(req admission.Request, slim bool) (obj, old map[string]any, err error) {
	decode := decodeObject
	if slim {
		decode = decodeSlim
	}
	if obj, err = decode(req.Object.Raw); err != nil {
		return nil, nil, fmt.Errorf("object: %w", err)
	}
	if req.Operation == admissionv1.Update {
		if old, err = decode(req.OldObject.Raw); err != nil {
			return nil, nil, fmt.Errorf("oldObject: %w", err)
		}
	}
	return obj, old, nil
}

// decodeObject decodes a JSON object.
func decodeObject(raw []byte) (map[string]any, error) {
	var v any
	if err := decodeJSON(raw, &v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errNotObject
	}
	return m, nil
}

// attributes builds what custom rules see.
func attributes(req admission.Request, k *kind, obj, old map[string]any) Attributes {
	a := Attributes{
		Operation:  req.Operation,
		Descriptor: k.d,
		Object:     &unstructured.Unstructured{Object: obj},
		DryRun:     req.DryRun != nil && *req.DryRun,
	}
	if old != nil {
		a.OldObject = &unstructured.Unstructured{Object: old}
	}
	return a
}

// invalid is the refusal of a request with field errors: the message lists
// them as the apiserver's own validation does, the causes carry them one by
// one.
func invalid(gk schema.GroupKind, name string, errs field.ErrorList) admission.Response {
	resp := admission.Denied(errs.ToAggregate().Error())
	resp.Result.Code = http.StatusUnprocessableEntity
	resp.Result.Reason = metav1.StatusReasonInvalid
	causes := make([]metav1.StatusCause, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, metav1.StatusCause{
			Type:    metav1.CauseType(e.Type),
			Message: e.ErrorBody(),
			Field:   e.Field,
		})
	}
	resp.Result.Details = &metav1.StatusDetails{Group: gk.Group, Kind: gk.Kind, Name: name, Causes: causes}
	return resp
}
