package webhook

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	authorization "github.com/armature-dev/armature/generated/apis/authorization/v20220401"
)

// TestRequiredSourced: a role assignment's principalId and roleDefinitionId
// are required by the ARM API. The CRD no longer requires them, since a
// reference or spec.valuesFrom may supply them (issue 29.2); admission
// refuses a spec in which nothing does, naming the field and the ways to
// give it.
func TestRequiredSourced(t *testing.T) {
	d := authorization.RoleAssignmentDescriptor
	k := &kind{d: &d, tree: buildTree(&d)}
	obj := func(spec map[string]any) map[string]any {
		spec["owner"] = map[string]any{"armId": "/subscriptions/s/resourceGroups/g"}
		return map[string]any{"metadata": map[string]any{"name": "ra"}, "spec": spec}
	}
	principalFrom := map[string]any{"path": "properties.principalId", "from": map[string]any{"kind": "UserAssignedIdentity", "name": "id", "field": "status.properties.principalId"}}
	roleRef := map[string]any{"kind": "RoleDefinition", "name": "reader"}
	cases := map[string]struct {
		spec map[string]any
		want []string // field: detail fragment; none: admitted
	}{
		"Set": {spec: map[string]any{"properties": map[string]any{"principalId": "p", "roleDefinitionId": "/r"}}},
		"ByRefAndValuesFrom": {spec: map[string]any{
			"properties": map[string]any{"roleDefinitionIdRef": roleRef},
			"valuesFrom": []any{principalFrom},
		}},
		"ValuesFromMakesTheHolder": {spec: map[string]any{
			"valuesFrom": []any{principalFrom},
		}, want: []string{"spec.properties.roleDefinitionId: Required value: the ARM API requires it: set it, or spec.properties.roleDefinitionIdRef"}},
		"NothingSupplies": {spec: map[string]any{
			"properties": map[string]any{"roleDefinitionId": "/r"},
		}, want: []string{"spec.properties.principalId: Required value: the ARM API requires it: set it, or supply it with spec.valuesFrom (path: properties.principalId)"}},
		"NoProperties": {spec: map[string]any{}, want: []string{"spec.properties: Required value"}},
		"Null": {spec: map[string]any{
			"properties": map[string]any{"principalId": nil, "roleDefinitionId": "/r"},
		}, want: []string{"spec.properties.principalId: Required value"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			errs := k.validate(admissionv1.Create, obj(tc.spec), nil)
			if len(errs) != len(tc.want) {
				t.Fatalf("errors %v, want %d: %q", errs, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(errs[i].Error(), w) {
					t.Errorf("error %d = %q, want prefix %q", i, errs[i].Error(), w)
				}
			}
		})
	}
}
