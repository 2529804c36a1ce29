package descriptor_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	"github.com/armature-dev/armature/runtime/descriptor"
)

func TestWalk(t *testing.T) {
	d := &storage.StorageAccountDescriptor
	body := map[string]any{
		"location": "westeurope",
		"tags":     map[string]any{"team": "a"},
		"identity": map[string]any{
			"type":                   "UserAssigned",
			"userAssignedIdentities": map[string]any{"/subscriptions/x/id1": map[string]any{"principalId": "p"}},
		},
		"properties": map[string]any{
			"networkAcls": map[string]any{"ipRules": []any{map[string]any{"value": "1.2.3.4", "bogus": true}}},
			"unknownTop":  1,
		},
	}
	got := map[string]string{}
	d.Walk(body, func(n descriptor.Node) bool {
		v := n.TablePath.String() + " " + string(n.Class)
		if !n.Known {
			v = n.TablePath.String() + " unknown"
		}
		got[n.Path.String()] = v
		return true
	})
	want := map[string]string{
		"location":                        "location createOnly",
		"tags":                            "tags writable",
		"identity":                        "identity writable",
		"identity.type":                   "identity.type writable",
		"identity.userAssignedIdentities": "identity.userAssignedIdentities writable",
		"identity.userAssignedIdentities./subscriptions/x/id1":             "identity.userAssignedIdentities.* writable",
		"identity.userAssignedIdentities./subscriptions/x/id1.principalId": "identity.userAssignedIdentities.*.principalId readOnly",
		"properties":                              "properties writable",
		"properties.networkAcls":                  "properties.networkAcls writable",
		"properties.networkAcls.ipRules":          "properties.networkAcls.ipRules writable",
		"properties.networkAcls.ipRules[0].value": "properties.networkAcls.ipRules[*].value writable",
		"properties.networkAcls.ipRules[0].bogus": "properties.networkAcls.ipRules[*].bogus unknown",
		"properties.unknownTop":                   "properties.unknownTop unknown",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !d.Open(descriptor.P("tags")) || d.Open(descriptor.P("properties")) {
		t.Error("tags (a map of strings) is open; properties is not")
	}
}
