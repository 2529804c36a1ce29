package action

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Plan is the request an Action would send.
type Plan struct {
	// Method is POST.
	Method string `json:"method"`
	// Path is <target id>/<action>; the target id is a placeholder when
	// it is not known offline.
	Path string `json:"path"`
	// APIVersion is the api-version query parameter.
	APIVersion string `json:"apiVersion"`
	// Query are the other query parameters.
	Query map[string]string `json:"query,omitempty"`
	// Body is the request body; secret parameters show where their value
	// comes from, never the value.
	Body any `json:"body,omitempty"`
	// LongRunning is true when ARM answers with an operation to poll.
	LongRunning bool `json:"longRunning,omitempty"`
}

// URL is the path with its query string.
func (p *Plan) URL() string {
	q := url.Values{}
	for k, v := range p.Query {
		q.Set(k, v)
	}
	q.Set("api-version", p.APIVersion)
	return p.Path + "?" + q.Encode()
}

// PlanFor returns the request an Action would send, after the checks the
// webhook makes. targetID is the ARM id of a target named by kind and name
// (its status.id); empty gives a placeholder.
func (r *Registry) PlanFor(a *v1alpha1.Action, targetID string) (*Plan, field.ErrorList) {
	d, act, errs := r.Validate(&a.Spec)
	if len(errs) > 0 {
		return nil, errs
	}
	id := a.Spec.Target.ARMID
	if id == "" {
		id = targetID
	}
	if id == "" {
		id = fmt.Sprintf("{status.id of %s %s/%s}", d.Kind, a.Namespace, a.Spec.Target.Name)
	}
	p := &Plan{Method: "POST", Path: id + "/" + act.Name, APIVersion: d.APIVersion, Query: a.Spec.Query, LongRunning: act.LongRunning}
	if a.Spec.Parameters != nil && len(a.Spec.Parameters.Raw) > 0 {
		if err := json.Unmarshal(a.Spec.Parameters.Raw, &p.Body); err != nil {
			return nil, field.ErrorList{field.Invalid(parametersPath, string(a.Spec.Parameters.Raw), err.Error())}
		}
	}
	sps := append([]v1alpha1.SecretParameter(nil), a.Spec.SecretParameters...)
	slices.SortFunc(sps, func(a, b v1alpha1.SecretParameter) int { return strings.Compare(a.Path, b.Path) })
	for i, sp := range sps {
		path, err := descriptor.ParsePath(sp.Path)
		if err != nil || len(path) == 0 {
			return nil, field.ErrorList{field.Invalid(secretsPath.Index(i).Child("path"), sp.Path, "must be a path of property names, such as properties.password")}
		}
		p.Body = path.Set(p.Body, fmt.Sprintf("<from Secret %s, key %s>", sp.SecretKeyRef.Name, sp.SecretKeyRef.Key))
	}
	return p, nil
}
