package examples

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// Validator checks custom resources against one version of a CRD, offline.
type Validator struct {
	// Group, Version and Kind of the CRD version.
	Group, Version, Kind string
	structural           *structuralschema.Structural
	validator            validation.SchemaValidator
	storage              bool
	// required holds the spec's required properties (WithRequired): the
	// CRD does not require them, admission does.
	required *descriptor.Descriptor
}

// WithRequired makes Check report the spec's required properties (table
// paths, model.Kind.RequiredPaths) that an object leaves out, as admission
// does: the CRD no longer requires them, since a reference or valuesFrom
// may supply them (an example supplies everything itself). It returns v.
func (v *Validator) WithRequired(paths []descriptor.Path) *Validator {
	d := &descriptor.Descriptor{}
	for _, p := range paths {
		d.Properties = append(d.Properties, descriptor.Property{Path: p, Required: true})
	}
	v.required = d
	return v
}

// NewValidator reads CRD YAML and prepares a validator for its storage
// version.
func NewValidator(crdYAML []byte) (*Validator, error) {
	all, err := NewValidators(crdYAML)
	if err != nil {
		return nil, err
	}
	for _, v := range all {
		if v.storage {
			return v, nil
		}
	}
	return nil, fmt.Errorf("CRD %s/%s: no storage version", all[0].Group, all[0].Kind)
}

// NewValidators reads CRD YAML and prepares a validator for every version.
func NewValidators(crdYAML []byte) ([]*Validator, error) {
	var v1 apiextv1.CustomResourceDefinition
	if err := yaml.Unmarshal(crdYAML, &v1); err != nil {
		return nil, fmt.Errorf("read CRD: %w", err)
	}
	var crd apiextensions.CustomResourceDefinition
	if err := apiextv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &crd, nil); err != nil {
		return nil, err
	}
	var out []*Validator
	for _, ver := range crd.Spec.Versions {
		schema := crd.Spec.Validation
		if ver.Schema != nil {
			schema = ver.Schema
		}
		if schema == nil || schema.OpenAPIV3Schema == nil {
			return nil, fmt.Errorf("%s: no schema", crd.Name)
		}
		s, err := structuralschema.NewStructural(schema.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("%s: not a structural schema: %w", crd.Name, err)
		}
		val, _, err := validation.NewSchemaValidator(schema.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", crd.Name, err)
		}
		out = append(out, &Validator{Group: crd.Spec.Group, Version: ver.Name, Kind: crd.Spec.Names.Kind, structural: s, validator: val, storage: ver.Storage})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no versions", crd.Name)
	}
	return out, nil
}

// Result is the verdict on one custom resource.
type Result struct {
	// Pruned are the fields the apiserver would drop silently.
	Pruned []string
	// Invalid are schema violations, as the apiserver words them.
	Invalid []string
}

// OK reports a custom resource that is stored exactly as sent.
func (r Result) OK() bool { return len(r.Pruned) == 0 && len(r.Invalid) == 0 }

// String summarises the failures.
func (r Result) String() string {
	var parts []string
	if len(r.Pruned) > 0 {
		parts = append(parts, "pruned: "+strings.Join(r.Pruned, ", "))
	}
	if len(r.Invalid) > 0 {
		parts = append(parts, "invalid: "+strings.Join(r.Invalid, "; "))
	}
	return strings.Join(parts, "; ")
}

// Check prunes a copy of obj as the apiserver would, then validates it.
//
// Like the apiserver's decoding of a custom resource (customresource_handler's
// schema coercer), it then drops every explicit JSON null of a property that
// is not nullable and has no default: `"delegationUrl": null` is stored as
// if the property were left out, which is also what ARM makes of it. Such a
// null is not reported as pruned (the apiserver does not warn about it); a
// required property sent as null is then reported missing, as the apiserver
// does.
func (v *Validator) Check(obj map[string]any) Result {
	cp := deepCopy(obj).(map[string]any)
	var res Result
	res.Pruned = pruning.PruneWithOptions(cp, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	sort.Strings(res.Pruned)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(cp, v.structural)
	for _, e := range validation.ValidateCustomResource(nil, cp, v.validator) {
		res.Invalid = append(res.Invalid, e.Error())
	}
	if spec, ok := cp["spec"].(map[string]any); ok && v.required != nil {
		for _, p := range v.required.RequiredMissing(spec) {
			res.Invalid = append(res.Invalid, fmt.Sprintf("spec.%s: Required value (the ARM API requires it; admission refuses the object without it)", p))
		}
	}
	return res
}
