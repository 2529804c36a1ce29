package override

import (
	"strings"
	"testing"

	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/runtime/descriptor"
)

func TestRefsReportEveryEntryThatDoesNothing(t *testing.T) {
	s := NewRefs("armature.yaml", []config.Reference{
		{Kind: "Vault", Path: "properties.tenantId", Remove: true, Because: "a GUID"},
		{Kind: "Vault", Path: "properties.vaultUri", Add: true, Because: "an id"},
		{Kind: "Gadget", Path: "properties.x", Add: true, Because: "no such kind"},
		{Kind: "Vault", Path: "properties.nothing", Add: true, Because: "no such path"},
		{Kind: "Vault", Path: "properties.subnetId", Add: true, Because: "detected already"},
	})
	k := s.For(vault)
	for _, p := range []string{"properties.tenantId", "properties.vaultUri", "properties.subnetId"} {
		for _, r := range k.At(descriptor.MustParsePath(p)) {
			if p == "properties.vaultUri" {
				k.Applied(r)
			}
		}
	}
	var got []string
	for _, err := range s.Errors() {
		got = append(got, err.Error())
	}
	want := []string{
		"armature.yaml: references[0] (Vault properties.tenantId): remove changes nothing at the 1 paths it matches (first: Vault properties.tenantId): no rule detects them; remove the entry",
		"armature.yaml: references[2] (Gadget properties.x): selects no generated kind",
		"armature.yaml: references[3] (Vault properties.nothing): matches no path of Vault that is a string of the spec",
		"armature.yaml: references[4] (Vault properties.subnetId): add changes nothing at the 1 paths it matches (first: Vault properties.subnetId): the rules detect them already, with the same targets; remove the entry",
	}
	if len(got) != len(want) {
		t.Fatalf("errors = %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d = %q, want it to start with %q", i, got[i], want[i])
		}
	}
}

func TestRefsProblemAndCite(t *testing.T) {
	s := NewRefs("specs/armature.yaml", []config.Reference{{Kind: "*", Path: "**.subnetId", Add: true, Because: "x"}})
	k := s.For(vault)
	p := descriptor.MustParsePath("properties.subnetId")
	rs := k.At(p)
	if len(rs) != 1 || k.Cite(rs[0]) != "specs/armature.yaml: references[0] (* **.subnetId)" {
		t.Fatalf("At = %v, cite %q", rs, k.Cite(rs[0]))
	}
	k.Problem(rs[0], p, "conflicts")
	k.Problem(rs[0], p, "conflicts") // reported once
	errs := s.Errors()
	if len(errs) != 2 || !strings.Contains(errs[1].Error(), "Vault properties.subnetId: conflicts") {
		t.Errorf("errors = %v", errs)
	}
	var nilKind *RefKind
	if nilKind.At(p) != nil || (*Refs)(nil).For(vault) != nil || (*Refs)(nil).Errors() != nil {
		t.Error("nil sets and kinds hold nothing")
	}
}
