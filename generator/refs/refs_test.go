package refs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/generator/refs"
)

// analyze runs the generator's analysis over hand-written swagger of
// testdata/rules.
func analyze(t *testing.T, files ...string) *generator.Analysis {
	t.Helper()
	a, err := generator.Analyze(generator.Options{SpecRoot: "testdata/rules", Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Errors) > 0 {
		t.Fatalf("analysis: %v", a.Errors)
	}
	return a
}

// lines writes the references of one kind as `path rule [targets] self`.
func lines(rep *refs.Report, kind string) []string {
	var out []string
	for _, k := range rep.Kinds {
		if k.Kind != kind {
			continue
		}
		for _, r := range k.References {
			s := strings.TrimSpace(fmt.Sprintf("%s %s %s", r.Path, r.Rule, strings.Join(r.Targets, ",")))
			if r.Shape == refs.Key {
				s += " (keys)"
			}
			if r.Self {
				s += " (self)"
			}
			out = append(out, s)
		}
	}
	return out
}

func TestRules(t *testing.T) {
	cases := map[string]struct {
		reason string
		file   string
		kind   string
		want   []string
	}{
		"Format": {
			reason: "format: arm-id on strings and list items; targets from an id written out in the description; readOnly is no spec",
			file:   "format.json", kind: "Widget",
			want: []string{
				"properties.peers[*] format",
				"properties.subnet format Microsoft.Network/virtualNetworks/subnets",
				"properties.target format",
			},
		},
		"Details": {
			reason: "x-ms-arm-id-details wins over format and gives the targets, also on a $ref'd definition and on list items",
			file:   "details.json", kind: "Widget",
			want: []string{
				"properties.anything arm-id-details",
				"properties.vault arm-id-details Microsoft.KeyVault/vaults",
				"properties.workspaceId arm-id-details Microsoft.OperationalInsights/workspaces",
				"properties.zoneIds[*] arm-id-details Microsoft.Network/dnszones,Microsoft.Network/privateDnsZones",
			},
		},
		"SubResource": {
			reason: "only id in the spec; the PUT body of another type; a named part of another type; never the kind's own children",
			file:   "subresource.json", kind: "Widget",
			want: []string{
				"properties.backends[*].id subresource",
				"properties.gatewayPools[*].id subresource Microsoft.Refs/gateways/pools",
				"properties.peer.id subresource Microsoft.Refs/peers",
				"properties.pool.id subresource",
				"properties.subnet.id subresource",
			},
		},
		"SelfParts": {
			reason: "a SubResource named after one of the kind's own collections names a part of the resource itself",
			file:   "gateway.json", kind: "Gateway",
			want: []string{
				"properties.rules[*].properties.firewall.id subresource",
				"properties.rules[*].properties.pool.id subresource Microsoft.Refs/gateways/pools (self)",
				"properties.rules[*].properties.probe.id subresource Microsoft.Refs/gateways/probes (self)",
			},
		},
		"NameAndDescription": {
			reason: "…Id, …ID, …Ids and id (without a name beside it) described as resource ids; targets from the id written out",
			file:   "name.json", kind: "Widget",
			want: []string{
				"properties.homeId name+description Microsoft.Resources/resourceGroups",
				"properties.managedEnvironmentId name+description Microsoft.App/managedEnvironments",
				"properties.networkRules[*].id name+description Microsoft.Network/virtualNetworks/subnets",
				"properties.serverFarmId name+description Microsoft.Web/serverfarms",
				"properties.subnetIds[*] name+description",
				"properties.vnetSubnetID name+description",
			},
		},
		"IDKeyedMap": {
			reason: "maps whose description says the keys are resource ids; userAssignedIdentities' type by ARM's identity contract",
			file:   "map.json", kind: "Widget",
			want: []string{
				"identity.userAssignedIdentities id-keyed-map Microsoft.ManagedIdentity/userAssignedIdentities (keys)",
				"properties.encryptionIdentities id-keyed-map (keys)",
			},
		},
		"IdentityContract": {
			reason: "a provider's own identity type without the words: ARM's managed identity contract keys identity.userAssignedIdentities by resource ids",
			file:   "map.json", kind: "Gadget",
			want: []string{"identity.userAssignedIdentities id-keyed-map Microsoft.ManagedIdentity/userAssignedIdentities (keys)"},
		},
		"Negatives": {
			reason: "GUIDs (tenantId, principalId, objectId, clientId, a subscription id with /subscriptions/ in its text), other ids, the body's own id, a named part's id, readOnly and secret values",
			file:   "negatives.json", kind: "Widget",
			want: nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a := analyze(t, tc.file)
			rep := refs.Find(a.Loader, a.Model.Packages, nil)
			if len(rep.Errors) > 0 {
				t.Fatal(rep.Errors)
			}
			if diff := cmp.Diff(tc.want, lines(rep, tc.kind)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestReferencesEntries(t *testing.T) {
	a := analyze(t, "name.json")
	set := override.NewRefs("armature.yaml", []config.Reference{
		{Kind: "Widget", Path: "properties.displayId", Add: true, Targets: []string{"Microsoft.Portal/dashboards"}, Because: "the examples send a dashboard's id"},
		{Kind: "Widget", Path: "properties.vnetSubnetID", Add: true, Targets: []string{"Microsoft.Network/virtualNetworks/subnets"}, Because: "a subnet"},
		{Kind: "Widget", Path: "properties.subnetIds[*]", Remove: true, Because: "subnet names, not ids"},
		{Kind: "Widget", Path: "properties.serverFarmId", Add: true, Targets: []string{"Microsoft.Web/serverfarms"}, Because: "detected already"},
		{Kind: "Widget", Path: "properties.parts[*].size", Add: true, Because: "an integer is no id"},
		{Kind: "Widget", Path: "properties.homeId", Add: true, Because: "both"},
		{Kind: "Widget", Path: "properties.homeId", Remove: true, Because: "both"},
	})
	rep := refs.Find(a.Loader, a.Model.Packages, set)
	want := []string{
		"properties.displayId override Microsoft.Portal/dashboards",
		"properties.homeId name+description Microsoft.Resources/resourceGroups",
		"properties.managedEnvironmentId name+description Microsoft.App/managedEnvironments",
		"properties.networkRules[*].id name+description Microsoft.Network/virtualNetworks/subnets",
		"properties.serverFarmId name+description Microsoft.Web/serverfarms",
		"properties.vnetSubnetID name+description Microsoft.Network/virtualNetworks/subnets",
	}
	if diff := cmp.Diff(want, lines(rep, "Widget")); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
	k := rep.Kinds[0]
	if len(k.Removed) != 1 || k.Removed[0].Path.String() != "properties.subnetIds[*]" || k.Removed[0].Note != "subnet names, not ids" {
		t.Errorf("removed = %+v", k.Removed)
	}
	for _, r := range k.References {
		switch r.Path.String() {
		case "properties.displayId":
			if r.Evidence != "armature.yaml: references[0] (Widget properties.displayId)" || r.Class != "writable" || r.TargetsFrom != refs.TargetsFromOverride {
				t.Errorf("added = %+v", r)
			}
		case "properties.vnetSubnetID":
			if r.TargetsFrom != refs.TargetsFromOverride || !strings.Contains(r.Note, "targets by armature.yaml: references[1]") {
				t.Errorf("targets set by an entry = %+v", r)
			}
		}
	}
	var errs []string
	for _, err := range rep.Errors {
		errs = append(errs, err.Error())
	}
	wantErrs := []string{
		"armature.yaml: references[3] (Widget properties.serverFarmId): add changes nothing",
		"armature.yaml: references[4] (Widget properties.parts[*].size): matches no path of Widget that is a string of the spec",
		"armature.yaml: references[5] (Widget properties.homeId): add changes nothing",
		"armature.yaml: references[6] (Widget properties.homeId): remove changes nothing",
		"armature.yaml: references[6] (Widget properties.homeId): Widget properties.homeId: remove conflicts with add of references[5] (Widget properties.homeId)",
	}
	if len(errs) != len(wantErrs) {
		t.Fatalf("errors:\n%s", strings.Join(errs, "\n"))
	}
	for i := range wantErrs {
		if !strings.HasPrefix(errs[i], wantErrs[i]) {
			t.Errorf("error %d = %q, want %q…", i, errs[i], wantErrs[i])
		}
	}
}
