package action

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
)

func TestSplit(t *testing.T) {
	regen, _ := storage.StorageAccountDescriptor.Action("regenerateKey")
	blob, _ := storage.StorageAccountDescriptor.Action("restoreBlobRanges")
	cases := map[string]struct {
		reason      string
		schema      string // action of StorageAccount
		body        string
		wantSecrets map[string]string
		wantPublic  string
	}{
		"Keys": {reason: "key values are secret, their names and permissions are not",
			schema:      "regenerateKey",
			body:        `{"keys":[{"keyName":"key1","value":"AAA","permissions":"FULL"},{"keyName":"key2","value":"BBB","permissions":"FULL"}]}`,
			wantSecrets: map[string]string{"keys.0.value": "AAA", "keys.1.value": "BBB"},
			wantPublic:  `{"keys":[{"keyName":"key1","permissions":"FULL"},{"keyName":"key2","permissions":"FULL"}]}`},
		"Undeclared": {reason: "a member the schema does not declare is treated as a secret",
			schema:      "regenerateKey",
			body:        `{"keys":[],"connection":"Endpoint=x;Key=y"}`,
			wantSecrets: map[string]string{"connection": "Endpoint=x;Key=y"},
			wantPublic:  `{"keys":[]}`},
		"Public": {reason: "a response without secrets stays whole",
			schema:      "restoreBlobRanges",
			body:        `{"status":"Complete","restoreId":"r1","parameters":{"blobRanges":[{"startRange":"a","endRange":"b"}]}}`,
			wantSecrets: map[string]string{},
			wantPublic:  `{"parameters":{"blobRanges":[{"endRange":"b","startRange":"a"}]},"restoreId":"r1","status":"Complete"}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a := regen
			if tc.schema == "restoreBlobRanges" {
				a = blob
			}
			var body map[string]any
			if err := json.Unmarshal([]byte(tc.body), &body); err != nil {
				t.Fatal(err)
			}
			secrets, public := split(a.Response, body)
			if diff := cmp.Diff(tc.wantSecrets, secrets); diff != "" {
				t.Errorf("%s: secrets (-want +got):\n%s", tc.reason, diff)
			}
			got, _ := json.Marshal(public)
			if string(got) != tc.wantPublic {
				t.Errorf("%s: public = %s, want %s", tc.reason, got, tc.wantPublic)
			}
		})
	}
	secrets, public := split(nil, map[string]any{"anything": "x"})
	if public != nil || secrets["anything"] != "x" {
		t.Errorf("without a response schema everything is secret: %v %v", secrets, public)
	}
}
