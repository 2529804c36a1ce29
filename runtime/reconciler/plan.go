package reconciler

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Plan is what a reconcile would send for a custom resource.
type Plan struct {
	// Action is create, update or none.
	Action string `json:"action"`
	// Verb is PUT or PATCH ("" for none).
	Verb string `json:"verb,omitempty"`
	ID   string `json:"id"`
	// Body is the PUT body or the merge patch.
	Body map[string]any `json:"body,omitempty"`
	// Reason says why (see Write.Reason).
	Reason string `json:"reason,omitempty"`
	// Ignored are the paths of spec.operatorSpec.ignoreChanges at which
	// Azure differs from spec: never corrected (see Write.Ignored).
	Ignored []string `json:"ignored,omitempty"`
}

// PlanFor computes, without writing anything, what a reconcile would send
// for obj: the same decision (decide) the reconciler takes, from the same
// body (the kind's MutateBody hook applied), against the object's
// last-applied annotation and the resource read from ARM. scope is the ARM
// id of the owner when spec.owner names a custom resource (outside a
// cluster there is none to read); subscriptionID is the subscription of
// kinds the subscription owns. Secret references and references to other objects are shown, not
// resolved.
func PlanFor(ctx context.Context, c arm.Client, d *descriptor.Descriptor, obj *unstructured.Unstructured, scope, subscriptionID string) (*Plan, error) {
	id, ok := resolveID(d, obj, scope, subscriptionID)
	if !ok {
		return nil, fmt.Errorf("the owner's ARM id is needed: set spec.owner.armId or pass the scope")
	}
	refs := func(ref ObjectRef) (string, error) {
		return fmt.Sprintf("<status.id of %s %s>", ref.Kind, ref.Name), nil
	}
	values := func(at string, vf map[string]any) (any, error) {
		return fmt.Sprintf("<from %s>", at), nil
	}
	desired, err := desiredBody(d, obj, refs, values, func(_ descriptor.Path, name, key string) (string, error) {
		return fmt.Sprintf("<from Secret %s, key %s>", name, key), nil
	}, nil)
	if err != nil {
		return nil, err
	}
	last, _ := loadApplied(obj.GetAnnotations()[core.AnnotationLastApplied]) // a digest only: compared with the live resource
	res, err := c.Get(ctx, id, d.APIVersion)
	var live map[string]any
	switch {
	case arm.IsNotFound(err):
		last = "" // gone: the reconciler creates it again
	case err != nil:
		return nil, err
	default:
		live = res.Body
		if live == nil {
			live = map[string]any{}
		}
	}
	w, err := decideWith(d, desired, last, live, hash, ignoredOf(obj))
	if err != nil {
		return nil, err
	}
	p := &Plan{Action: "none", ID: id, Verb: w.Verb, Body: w.Body, Reason: w.Reason, Ignored: w.Ignored}
	switch {
	case w.Create:
		p.Action = "create"
	case w.Verb != "":
		p.Action = "update"
	}
	return p, nil
}
