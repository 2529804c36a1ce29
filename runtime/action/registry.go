package action

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Registry finds the Descriptor of an Action's target among the generated
// kinds the operator runs, and validates Actions against it. It is shared
// by the reconciler, the webhook and the plan command.
type Registry struct {
	descs []*descriptor.Descriptor
}

// NewRegistry returns a registry of descs. When a group and kind has
// several versions, its storage version is used (its api-version is sent
// and its custom resources are read), else the first one given.
func NewRegistry(descs []*descriptor.Descriptor) *Registry {
	var out []*descriptor.Descriptor
	at := map[schema.GroupKind]int{}
	for _, d := range descs {
		gk := schema.GroupKind{Group: d.Group, Kind: d.Kind}
		i, seen := at[gk]
		switch {
		case !seen:
			at[gk] = len(out)
			out = append(out, d)
		case d.IsStorage() && !out[i].IsStorage():
			out[i] = d
		}
	}
	return &Registry{descs: out}
}

// Descriptors returns one Descriptor per kind: the version Actions use.
func (r *Registry) Descriptors() []*descriptor.Descriptor { return r.descs }

var (
	targetPath     = field.NewPath("spec", "target")
	actionPath     = field.NewPath("spec", "action")
	parametersPath = field.NewPath("spec", "parameters")
	queryPath      = field.NewPath("spec", "query")
	secretsPath    = field.NewPath("spec", "secretParameters")
)

// ForTarget returns the Descriptor of a target: by kind (and group, when
// given), or by matching armId against the kinds' path templates.
func (r *Registry) ForTarget(t v1alpha1.ActionTarget) (*descriptor.Descriptor, *field.Error) {
	if t.ARMID != "" {
		if d, _, ok := descriptor.Find(r.descs, t.ARMID); ok {
			return d, nil
		}
		return nil, field.Invalid(targetPath.Child("armId"), t.ARMID, "names no resource type this operator runs (the id must have the shape of a generated kind's ARM path)")
	}
	var groups []string
	for _, d := range r.descs {
		if d.Kind != t.Kind {
			continue
		}
		if t.Group == "" || t.Group == d.Group {
			return d, nil
		}
		groups = append(groups, d.Group)
	}
	if len(groups) > 0 {
		return nil, field.NotSupported(targetPath.Child("group"), t.Group, groups)
	}
	return nil, field.Invalid(targetPath.Child("kind"), t.Kind, "is not a kind this operator runs (armature inspect lists the generated kinds)")
}

// Validate checks an Action's spec against its target's Descriptor: a
// generated kind, an action the kind has, parameters and query parameters
// that fit the action's schemas, secret values given only through
// secretParameters. It returns the Descriptor and action when they are
// known, and every problem with its field path.
func (r *Registry) Validate(spec *v1alpha1.ActionSpec) (*descriptor.Descriptor, *descriptor.Action, field.ErrorList) {
	d, ferr := r.ForTarget(spec.Target)
	if ferr != nil {
		return nil, nil, field.ErrorList{ferr}
	}
	a, ok := d.Action(spec.Action)
	if !ok {
		return d, nil, field.ErrorList{field.NotSupported(actionPath, spec.Action, d.ActionNames())}
	}
	var errs field.ErrorList
	var params any
	if spec.Parameters != nil && len(spec.Parameters.Raw) > 0 {
		if err := json.Unmarshal(spec.Parameters.Raw, &params); err != nil {
			return d, a, field.ErrorList{field.Invalid(parametersPath, string(spec.Parameters.Raw), "not JSON: "+err.Error())}
		}
	}
	if a.Request == nil {
		if params != nil {
			errs = append(errs, field.Forbidden(parametersPath, fmt.Sprintf("%s of %s takes no request body", a.Name, d.Kind)))
		}
		if len(spec.SecretParameters) > 0 {
			errs = append(errs, field.Forbidden(secretsPath, fmt.Sprintf("%s of %s takes no request body", a.Name, d.Kind)))
		}
	} else {
		errs = append(errs, secretChecks(a, params, spec.SecretParameters)...)
		withSecrets := params
		for _, sp := range spec.SecretParameters {
			if p, err := descriptor.ParsePath(sp.Path); err == nil && len(p) > 0 {
				withSecrets = p.Set(withSecrets, "(from a Secret)")
			}
		}
		for _, p := range a.Request.Validate(withSecrets) {
			errs = append(errs, problemError(parametersPath, p, a))
		}
	}
	for _, p := range descriptor.ValidateQuery(a.Query, spec.Query) {
		if p.Kind == descriptor.ProblemUnknown {
			errs = append(errs, field.Forbidden(queryPath.Key(p.Path.String()), fmt.Sprintf("unknown query parameter of %s (it has: %s)", a.Name, queryNames(a))))
			continue
		}
		fe := problemError(queryPath, p, a)
		fe.Field = queryPath.Key(p.Path.String()).String()
		errs = append(errs, fe)
	}
	return d, a, errs
}

// secretChecks refuses plain values at the request's secret paths and
// secret parameters at paths the request schema does not have.
func secretChecks(a *descriptor.Action, params any, sps []v1alpha1.SecretParameter) field.ErrorList {
	var errs field.ErrorList
	for _, p := range a.Request.SecretPaths() {
		if len(p) == 0 || slices.ContainsFunc(p, descriptor.IsWildcard) {
			continue
		}
		if v, ok := p.Get(params); ok && v != nil {
			errs = append(errs, field.Forbidden(p.FieldPath(parametersPath), "is a secret: give it in spec.secretParameters as a Secret key reference, not in the Action (the value given is not shown)"))
		}
	}
	for i, sp := range sps {
		p, err := descriptor.ParsePath(sp.Path)
		if err != nil || len(p) == 0 || slices.ContainsFunc(p, descriptor.IsWildcard) {
			errs = append(errs, field.Invalid(secretsPath.Index(i).Child("path"), sp.Path, "must be a path of property names, such as properties.password"))
			continue
		}
		f, ok := a.Request.Field(p)
		switch {
		case !ok:
			errs = append(errs, field.Invalid(secretsPath.Index(i).Child("path"), sp.Path, fmt.Sprintf("is not a member of the request body of %s", a.Name)))
		case f.Type != "string" && f.Type != "":
			errs = append(errs, field.Invalid(secretsPath.Index(i).Child("path"), sp.Path, "a Secret value is a string; this member is of type "+f.Type))
		}
	}
	return errs
}

// problemError turns a schema problem into a field error below base.
func problemError(base *field.Path, p descriptor.Problem, a *descriptor.Action) *field.Error {
	fp := p.Path.FieldPath(base)
	switch p.Kind {
	case descriptor.ProblemRequired:
		if len(p.Path) == 0 {
			return field.Required(fp, fmt.Sprintf("%s needs a request body (%s)", a.Name, schemaName(a.Request)))
		}
		return field.Required(fp, "")
	case descriptor.ProblemUnsupported:
		return field.NotSupported(fp, p.Value, p.Supported)
	case descriptor.ProblemType:
		return field.TypeInvalid(fp, p.Value, "must be of type "+p.Type)
	case descriptor.ProblemReadOnly:
		return field.Forbidden(fp, "is read-only: Azure sets it")
	}
	return field.Forbidden(fp, fmt.Sprintf("unknown field: the request body of %s (%s) has no such member", a.Name, schemaName(a.Request)))
}

func queryNames(a *descriptor.Action) string {
	if len(a.Query) == 0 {
		return "none"
	}
	names := make([]string, len(a.Query))
	for i, q := range a.Query {
		names[i] = q.Name()
	}
	return strings.Join(names, ", ")
}

func schemaName(b *descriptor.Body) string {
	if b == nil {
		return "none"
	}
	if i := strings.LastIndex(b.Schema, "/"); i >= 0 {
		return b.Schema[i+1:]
	}
	return b.Schema
}

// Kinds returns group/Kind of every kind of the registry, sorted.
func (r *Registry) Kinds() []string {
	var out []string
	for _, d := range r.descs {
		out = append(out, d.Group+"/"+d.Kind)
	}
	sort.Strings(out)
	return out
}
