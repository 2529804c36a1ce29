package override

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/runtime/descriptor"
)

var vault = Target{Group: "keyvault.azure.armature.dev", Short: "keyvault", Version: "v20230701", APIVersion: "2023-07-01", Kind: "Vault", ARMType: "Microsoft.KeyVault/vaults"}

func overrides(list ...config.Override) []config.Override {
	for i := range list {
		list[i].Index = i
	}
	return list
}

func TestAtMergesEveryMatch(t *testing.T) {
	s := New("armature.yaml", overrides(
		config.Override{Kind: "Vault", Path: "properties.vaultUri", Class: "readOnly", Because: "computed"},
		config.Override{Kind: "*", Path: "**.vaultUri", Rename: "URI", Because: "Go style"},
		config.Override{Kind: "Vault", Path: "properties.sku.name", Enum: "open", Because: "lags"},
		config.Override{Kind: "Secret", Path: "properties.vaultUri", Class: "writable", Because: "other kind"},
	))
	k := s.For(vault)
	got := k.At(descriptor.MustParsePath("properties.vaultUri"))
	want := &Fix{Path: descriptor.MustParsePath("properties.vaultUri"), Class: "readOnly", Rename: "URI", Because: "computed; Go style"}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Fix{})); diff != "" {
		t.Errorf("At (-want +got):\n%s", diff)
	}
	if k.At(descriptor.MustParsePath("properties.tenantId")) != nil {
		t.Error("a path no override matches has no fix")
	}
	if !got.Has("class") || !got.Has("rename") || got.Has("enum") {
		t.Error("Has must say which actions the fix sets")
	}
	if !k.Below(descriptor.MustParsePath("properties")) || !k.Below(descriptor.MustParsePath("")) || k.Below(descriptor.MustParsePath("properties.vaultUri")) || k.Below(descriptor.MustParsePath("tags")) {
		t.Error("Below must report overrides strictly below a prefix")
	}
	if f := s.For(Target{Kind: "Widget", ARMType: "Microsoft.Contoso/widgets"}).At(descriptor.MustParsePath("properties.vaultUri")); f == nil || f.Class != "" || f.Rename != "URI" {
		t.Errorf("only the wildcard override selects another kind: %+v", f)
	}
	if New("armature.yaml", overrides(config.Override{Kind: "Vault", Path: "x", Hide: true, Because: "b"})).For(Target{Kind: "Widget"}) != nil {
		t.Error("a kind no override selects has no fixes")
	}
	var nilKind *Kind
	if nilKind.At(descriptor.P("x")) != nil || nilKind.Below(nil) {
		t.Error("a nil Kind has no fixes")
	}
}

func TestErrors(t *testing.T) {
	s := New("specs/armature.yaml", overrides(
		config.Override{Kind: "Vault", Path: "properties.vaultUri", Class: "readOnly", Because: "computed"},
		config.Override{Kind: "Valt", Path: "properties.vaultUri", Class: "readOnly", Because: "typo in kind"},
		config.Override{Kind: "Vault", Path: "properties.vaultUrl", Class: "readOnly", Because: "typo in path"},
		config.Override{Kind: "Vault", Path: "properties.tenantId", Class: "writable", Because: "already writable"},
		config.Override{Kind: "Vault", Path: "properties.vaultUri", Class: "writable", Because: "conflicts"},
		config.Override{Kind: "Vault", Path: "properties.sku.name", Default: []byte(`"standard"`), Because: "policy"},
	))
	k := s.For(vault)
	if f := k.At(descriptor.MustParsePath("properties.vaultUri")); f != nil {
		k.Applied(f, "class")
	}
	k.At(descriptor.MustParsePath("properties.tenantId"))
	if f := k.At(descriptor.MustParsePath("properties.sku.name")); f != nil {
		k.Applied(f, "default")
		k.Problem(f, "default", "not in the enum")
	}
	var got []string
	for _, err := range s.Errors() {
		got = append(got, err.Error())
	}
	want := []string{
		"specs/armature.yaml: overrides[1] (Valt properties.vaultUri): selects no generated kind",
		"specs/armature.yaml: overrides[2] (Vault properties.vaultUrl): matches no property of Vault; `armature inspect --properties --kind Vault` lists its paths",
		"specs/armature.yaml: overrides[3] (Vault properties.tenantId): class changes nothing at the 1 properties it matches (first: Vault properties.tenantId)",
		"specs/armature.yaml: overrides[4] (Vault properties.vaultUri): class changes nothing",
		"specs/armature.yaml: overrides[4] (Vault properties.vaultUri): Vault properties.vaultUri: class writable conflicts with class readOnly of overrides[0] (Vault properties.vaultUri)",
		"specs/armature.yaml: overrides[5] (Vault properties.sku.name): Vault properties.sku.name: not in the enum",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d:\n got %s\nwant %s…", i, got[i], want[i])
		}
	}
}
