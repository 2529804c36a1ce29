package reconciler

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestOwnerTarget: which kind spec.owner names, for a kind whose owner is
// one generated kind and for an extension kind, whose owner is any kind.
func TestOwnerTarget(t *testing.T) {
	account := schema.GroupKind{Group: "storage.azure.armature.dev", Kind: "StorageAccount"}
	child := &Reconciler{Desc: &descriptor.Descriptor{Kind: "Container", Scope: descriptor.ScopeResourceGroup, OwnerGroup: account.Group, OwnerKind: account.Kind}, OwnerVersion: "v20230501"}
	ext := &Reconciler{Desc: &descriptor.Descriptor{Kind: "Grant", Scope: descriptor.ScopeExtension},
		kinds: newKindSet(map[schema.GroupKind]string{account: "v20230501"})}
	cases := map[string]struct {
		r      *Reconciler
		owner  map[string]any
		want   schema.GroupVersionKind
		found  bool
		reason string
	}{
		"OwnerKindByDefault":  {r: child, owner: map[string]any{"name": "a"}, want: account.WithVersion("v20230501"), found: true},
		"OwnerKindSpelledOut": {r: child, owner: map[string]any{"group": account.Group, "kind": account.Kind, "name": "a"}, want: account.WithVersion("v20230501"), found: true},
		"OtherKindRefused":    {r: child, owner: map[string]any{"group": "x.azure.armature.dev", "kind": "Y", "name": "a"}, reason: core.ReasonOwnerKindMismatch},
		"ExtensionAnyKind":    {r: ext, owner: map[string]any{"group": account.Group, "kind": account.Kind, "name": "a"}, want: account.WithVersion("v20230501"), found: true},
		"ExtensionNoKind":     {r: ext, owner: map[string]any{"name": "a"}},
		"ExtensionHalfGiven":  {r: ext, owner: map[string]any{"kind": account.Kind, "name": "a"}, reason: core.ReasonOwnerKindUnknown},
		"NotGeneratedNoKind":  {r: &Reconciler{Desc: &descriptor.Descriptor{Kind: "ResourceGroup"}}, owner: map[string]any{"name": "sub"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, found, err := tc.r.ownerTarget(tc.owner)
			var te *terminalError
			switch {
			case tc.reason != "" && (!errors.As(err, &te) || te.reason != tc.reason):
				t.Fatalf("error %v, want a terminal error with reason %s", err, tc.reason)
			case tc.reason == "" && err != nil:
				t.Fatal(err)
			}
			if got != tc.want || found != tc.found {
				t.Errorf("ownerTarget = %v, %v; want %v, %v", got, found, tc.want, tc.found)
			}
		})
	}
}
