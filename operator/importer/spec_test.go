package importer

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// widget is a small Descriptor with every class, a map of described values
// and an array of objects.
func widget() *descriptor.Descriptor {
	p := func(class descriptor.Class, segs ...string) descriptor.Property {
		return descriptor.Property{Path: descriptor.P(segs...), Class: class, Rule: "test"}
	}
	hiddenProp := p(descriptor.Writable, "properties", "legacy")
	hiddenProp.Rule += hiddenRule + "deprecated"
	return &descriptor.Descriptor{
		Kind: "Widget", ARMType: "Test.RP/widgets",
		Properties: []descriptor.Property{
			p(descriptor.ReadOnly, "id"),
			p(descriptor.Writable, "identity"),
			p(descriptor.ReadOnly, "identity", "principalId"),
			p(descriptor.Writable, "identity", "userAssignedIdentities"),
			p(descriptor.Writable, "identity", "userAssignedIdentities", descriptor.Values),
			p(descriptor.ReadOnly, "identity", "userAssignedIdentities", descriptor.Values, "clientId"),
			p(descriptor.CreateOnly, "location"),
			p(descriptor.ReadOnly, "name"),
			p(descriptor.Writable, "properties"),
			p(descriptor.WriteOnly, "properties", "createMode"),
			hiddenProp,
			p(descriptor.Writable, "properties", "login"),
			p(descriptor.Secret, "properties", "login", "password"),
			p(descriptor.Writable, "properties", "login", "user"),
			p(descriptor.ReadOnly, "properties", "provisioningState"),
			p(descriptor.Writable, "properties", "rules"),
			p(descriptor.ReadOnly, "properties", "rules", descriptor.Items, "state"),
			p(descriptor.Writable, "properties", "rules", descriptor.Items, "value"),
			p(descriptor.ReadOnly, "properties", "status"),
			p(descriptor.ReadOnly, "properties", "status", "code"),
			p(descriptor.Writable, "tags"),
		},
		SecretPaths: []descriptor.Path{descriptor.P("properties", "login", "password")},
	}
}

func TestSpecOf(t *testing.T) {
	uai := "/subscriptions/s/resourceGroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities/a"
	cases := map[string]struct {
		reason string
		body   map[string]any
		want   built
	}{
		"Classes": {
			reason: "readOnly values go, createOnly and writable stay, unknown and hidden ones go and are reported",
			body: map[string]any{"id": "/x", "name": "x", "location": "westeurope", "tags": map[string]any{},
				"properties": map[string]any{"provisioningState": "Succeeded", "legacy": true, "future": 1.0, "rules": []any{map[string]any{"value": "10.0.0.0/24", "state": "Succeeded"}}}},
			want: built{spec: map[string]any{"location": "westeurope", "tags": map[string]any{}, "properties": map[string]any{"rules": []any{map[string]any{"value": "10.0.0.0/24"}}}},
				dropped: []string{"properties.future", "properties.legacy"}},
		},
		"Emptied": {
			reason: "an object left empty by the removals goes; a map's value stays even when emptied (its key is what counts)",
			body: map[string]any{"properties": map[string]any{"provisioningState": "Succeeded", "status": map[string]any{"code": "OK"}},
				"identity": map[string]any{"principalId": "p", "userAssignedIdentities": map[string]any{uai: map[string]any{"clientId": "c"}}}},
			want: built{spec: map[string]any{"identity": map[string]any{"userAssignedIdentities": map[string]any{uai: map[string]any{}}}}},
		},
		"Secret": {
			reason: "a secret becomes a reference when the GET has its holder; a secret value ARM returns anyway is never copied",
			body:   map[string]any{"properties": map[string]any{"login": map[string]any{"user": "admin", "password": "leaked"}}},
			want: built{spec: map[string]any{"properties": map[string]any{"login": map[string]any{"user": "admin", "password": map[string]any{"name": "w-secrets", "key": "properties.login.password"}}}},
				secrets: []descriptor.Path{descriptor.P("properties", "login", "password")}},
		},
		"SecretWithoutHolder": {
			reason: "no login in the GET: no reference is made up",
			body:   map[string]any{"location": "westeurope"},
			want:   built{spec: map[string]any{"location": "westeurope"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := specOf(widget(), tc.body, "w-secrets")
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(built{})); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
