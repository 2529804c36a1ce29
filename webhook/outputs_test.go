package webhook

import (
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
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
			cms:     []any{o("app", "blob", "status.properties.primaryEndpoints.blob"), o("app", "id", "status.id"), o("app", "sku", "spec.sku.name")},
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
		"Twice": {
			cms:  []any{o("app", "id", "status.id"), o("app", "id", "spec.sku.name")},
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
