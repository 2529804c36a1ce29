package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestSelectedSample keeps, of a sample set, the documents of chosen
// kinds and the Secrets, and leaves out a set none of whose own kinds is
// chosen (its resource group alone is no sample).
func TestSelectedSample(t *testing.T) {
	const set = `---
apiVersion: v1
kind: Secret
metadata: {name: s}
---
apiVersion: resources.azure.armature.dev/v20240301
kind: ResourceGroup
metadata: {name: samples-storage}
---
apiVersion: storage.azure.armature.dev/v20230501
kind: StorageAccount
metadata: {name: a}
---
apiVersion: storage.azure.armature.dev/v20230501
kind: StorageAccountsBlobService
metadata: {name: b}
`
	rg := schema.GroupKind{Group: "resources.azure.armature.dev", Kind: "ResourceGroup"}
	sa := schema.GroupKind{Group: "storage.azure.armature.dev", Kind: "StorageAccount"}
	blob := schema.GroupKind{Group: "storage.azure.armature.dev", Kind: "StorageAccountsBlobService"}
	cases := map[string]struct {
		reason   string
		selected []schema.GroupKind
		want     []string // kinds kept; nil: the file is left out
		same     bool     // the file is returned as it is
	}{
		"All": {
			reason:   "every kind chosen: the file as it is",
			selected: []schema.GroupKind{rg, sa, blob},
			want:     []string{"Secret", "ResourceGroup", "StorageAccount", "StorageAccountsBlobService"},
			same:     true,
		},
		"Some": {
			reason:   "the documents of the kinds not chosen go",
			selected: []schema.GroupKind{rg, sa},
			want:     []string{"Secret", "ResourceGroup", "StorageAccount"},
		},
		"OnlyTheResourceGroup": {
			reason:   "a set whose own kinds are not chosen is no sample",
			selected: []schema.GroupKind{rg},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sel := &selector{gks: map[schema.GroupKind]bool{}}
			for _, gk := range tc.selected {
				sel.gks[gk] = true
			}
			got, keep, err := selectedSample([]byte(set), sel, "storage.azure.armature.dev")
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			if keep {
				for _, line := range strings.Split(string(got), "\n") {
					if k, ok := strings.CutPrefix(line, "kind: "); ok {
						kinds = append(kinds, k)
					}
				}
			}
			if diff := cmp.Diff(tc.want, kinds); diff != "" {
				t.Errorf("%s: -want +got kinds:\n%s", tc.reason, diff)
			}
			if tc.same && string(got) != set {
				t.Errorf("%s: the file changed:\n%s", tc.reason, got)
			}
		})
	}
}
