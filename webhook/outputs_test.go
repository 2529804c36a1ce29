package webhook

import (
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestValidateOutputs: each output value is a path the object has, or a
// list action's answer bound for a Secret; a key is written once. Each
// case fails when the check it names is removed.
func TestValidateOutputs(t *testing.T) {
	d := storage.StorageAccountDescriptor
	k := &kind{d: &d, tree: buildTree(&d)}
	out := func(cms, secrets []any) map[string]any {
		return map[string]any{
			"metadata": map[string]any{"name": "media"},
			"spec": map[string]any{
				"owner": map[string]any{"armId": "/subscriptions/s/resourceGroups/g"}, "location": "westeurope",
				"kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
				"operatorSpec": map[string]any{"configMaps": cms, "secrets": secrets},
			},
		}
	}
	o := func(name, key, value string) any { return map[string]any{"name": name, "key": key, "value": value} }
	cases := map[string]struct {
		cms, secrets []any
		want         []string
	}{
		"Fine": {
			cms:     []any{o("app", "blob", "status.properties.primaryEndpoints.blob"), o("app", "id", "status.id"), o("app", "sku", "status.sku.name")},
			secrets: []any{o("app-keys", "key", "listKeys.keys[0].value")},
		},
		"UnknownStatusPath": {
			cms:  []any{o("app", "blob", "status.properties.primaryEndpoint.blob")},
			want: []string{"spec.operatorSpec.configMaps[0].value: Invalid value: \"status.properties.primaryEndpoint.blob\": StorageAccount has no property properties.primaryEndpoint in status"},
		},
		"KeyInConfigMap": {
			cms:  []any{o("app", "key", "listKeys.keys[0].value")},
			want: []string{"spec.operatorSpec.configMaps[0].value: Invalid value: \"listKeys.keys[0].value\": listKeys answers secrets: write it to a Secret"},
		},
		"NotAListAction": {
			secrets: []any{o("app-keys", "key", "regenerateKey.keys[0].value")},
			want:    []string{"spec.operatorSpec.secrets[0].value: Invalid value: \"regenerateKey.keys[0].value\": a value is a path into this object"},
		},
		"SpecValue": {
			cms:  []any{o("app", "sku", "spec.sku.name")},
			want: []string{"spec.operatorSpec.configMaps[0].value: Invalid value: \"spec.sku.name\": a value is a path into this object's status"},
		},
		"CredentialSecret": {
			secrets: []any{o("armature-credential", "clientSecret", "listKeys.keys[0].value")},
			want:    []string{"spec.operatorSpec.secrets[0].name: Invalid value: \"armature-credential\": armature-credential is a credential Secret"},
		},
		"Twice": {
			cms:  []any{o("app", "id", "status.id"), o("app", "id", "status.sku.name")},
			want: []string{"spec.operatorSpec.configMaps[1].key: Duplicate value: \"configMaps app key id is written twice\""},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range k.validate(admissionv1.Create, out(tc.cms, tc.secrets), nil) {
				got = append(got, e.Error())
			}
			slices.Sort(got)
			if len(got) != len(tc.want) {
				t.Fatalf("errors %q, want %d starting %q", got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("error %q, want it to start %q", got[i], tc.want[i])
				}
			}
		})
	}
}

// TestValidateValuesFrom: one source per entry, a path the spec may set, a
// Secret only for a secret property, a source field the source kind has. Each case fails when its check is
// removed.
func TestValidateValuesFrom(t *testing.T) {
	d := storage.StorageAccountDescriptor
	k := &kind{d: &d, tree: buildTree(&d), reg: New([]*descriptor.Descriptor{&d})}
	obj := func(entries ...any) map[string]any {
		return map[string]any{
			"metadata": map[string]any{"name": "media"},
			"spec": map[string]any{
				"owner": map[string]any{"armId": "/subscriptions/s/resourceGroups/g"}, "location": "westeurope",
				"kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
				"valuesFrom": entries,
			},
		}
	}
	from := map[string]any{"kind": "ConfigThing", "name": "c", "field": "status.properties.tier"}
	cases := map[string]struct {
		entry any
		want  string
	}{
		"Fine":        {map[string]any{"path": "properties.accessTier", "from": from}, ""},
		"FineCM":      {map[string]any{"path": "tags.team", "configMapKeyRef": map[string]any{"name": "s", "key": "team"}}, ""},
		"TwoSources":  {map[string]any{"path": "properties.accessTier", "from": from, "configMapKeyRef": map[string]any{"name": "s", "key": "k"}}, "spec.valuesFrom[0]: Invalid value: \"\": set exactly one of"},
		"Unknown":     {map[string]any{"path": "properties.accesTier", "from": from}, "spec.valuesFrom[0].path: Invalid value: \"properties.accesTier\": StorageAccount has no property properties.accesTier"},
		"ReadOnly":    {map[string]any{"path": "properties.provisioningState", "from": from}, "is read-only"},
		"SecretToNot": {map[string]any{"path": "properties.accessTier", "secretKeyRef": map[string]any{"name": "s", "key": "k"}}, "a Secret's value goes only to a secret property"},
		"FromShape":   {map[string]any{"path": "properties.accessTier", "from": map[string]any{"kind": "X"}}, "must be {kind, name, field}"},
		// A source kind this webhook serves: its field is checked.
		"SourceField":       {map[string]any{"path": "properties.accessTier", "from": map[string]any{"kind": "storageaccount", "name": "a", "field": "status.properties.accessTier"}}, ""},
		"SourceID":          {map[string]any{"path": "properties.accessTier", "from": map[string]any{"kind": "StorageAccount", "name": "a", "field": "status.id"}}, ""},
		"BelowReadOnlyList": {map[string]any{"path": "properties.accessTier", "from": map[string]any{"kind": "StorageAccount", "name": "a", "field": "status.properties.privateEndpointConnections[0].id"}}, ""},
		"SourceTypo": {map[string]any{"path": "properties.accessTier", "from": map[string]any{"kind": "StorageAccount", "name": "a", "field": "status.properties.primaryEndpoints.blobb"}},
			`spec.valuesFrom[0].from.field: Invalid value: "status.properties.primaryEndpoints.blobb": StorageAccount has no status.properties.primaryEndpoints.blobb`},
		"SourceRoot": {map[string]any{"path": "properties.accessTier", "from": map[string]any{"kind": "StorageAccount", "name": "a", "field": "properties.accessTier"}},
			"StorageAccount has no properties.accessTier (a field of the object: status.<property>"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			errs := k.validate(admissionv1.Create, obj(tc.entry), nil)
			if tc.want == "" {
				if len(errs) != 0 {
					t.Errorf("errors %v, want none", errs)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Errorf("errors %v, want one with %q", errs, tc.want)
			}
		})
	}
}
