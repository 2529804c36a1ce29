package reconciler

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

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
}

// PlanFor computes, without writing anything, what would be sent for obj:
// the resource is read from ARM and compared with the spec (only the
// values the spec sets). scope is the ARM id of the owner when spec.owner
// names a custom resource (outside a cluster there is none to read). Secret
// references are shown, not resolved.
func PlanFor(ctx context.Context, c arm.Client, d *descriptor.Descriptor, obj *unstructured.Unstructured, scope string) (*Plan, error) {
	s := spec(obj)
	name := azureName(obj, d)
	owner, _ := s["owner"].(map[string]any)
	id, _ := s["resourceID"].(string)
	if id == "" {
		if a, _ := owner["armId"].(string); a != "" {
			scope = a
		}
		if scope == "" {
			return nil, fmt.Errorf("the owner's ARM id is needed: set spec.owner.armId or pass the scope")
		}
		id = d.ID(scope, name)
	}
	desired := runtime.DeepCopyJSON(s)
	for _, f := range operatorFields {
		delete(desired, f)
	}
	res, err := c.Get(ctx, id, d.APIVersion)
	if arm.IsNotFound(err) {
		return &Plan{Action: "create", Verb: http.MethodPut, ID: id, Body: desired}, nil
	}
	if err != nil {
		return nil, err
	}
	live := project(res.Body, desired)
	lb, _ := json.Marshal(live)
	db, _ := json.Marshal(desired)
	patch, err := jsonpatch.CreateMergePatch(lb, db)
	if err != nil {
		return nil, err
	}
	var pm map[string]any
	_ = json.Unmarshal(patch, &pm)
	if len(pm) == 0 {
		return &Plan{Action: "none", ID: id}, nil
	}
	if d.HasVerb(http.MethodPatch) && !d.PatchTagsOnly {
		return &Plan{Action: "update", Verb: http.MethodPatch, ID: id, Body: pm}, nil
	}
	full, _ := jsonpatch.MergePatch(lb, patch)
	var body map[string]any
	_ = json.Unmarshal(full, &body)
	return &Plan{Action: "update", Verb: http.MethodPut, ID: id, Body: body}, nil
}

// project keeps the members of live that want has, recursively.
func project(live, want map[string]any) map[string]any {
	out := map[string]any{}
	for k, wv := range want {
		lv, ok := live[k]
		if !ok {
			continue
		}
		wm, wok := wv.(map[string]any)
		lm, lok := lv.(map[string]any)
		if wok && lok {
			out[k] = project(lm, wm)
			continue
		}
		out[k] = lv
	}
	return out
}
