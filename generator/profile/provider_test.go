package profile

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/recording"
)

func TestProviderRules(t *testing.T) {
	kind := func(armType string) *model.Kind {
		return &model.Kind{Resource: &tree.Resource{ARMType: armType}}
	}
	notFound := func(code string, where string) *evidence {
		return &evidence{notFound: []seen{{where: where, err: errorOf404(code)}}}
	}
	const (
		rules  = "Microsoft.Network/routeTables/routes"
		peers  = "Microsoft.Network/virtualNetworks/virtualNetworkPeerings"
		subnet = "Microsoft.Network/virtualNetworks/subnets"
		vnet   = "Microsoft.Network/virtualNetworks"
		disks  = "Microsoft.Compute/disks"
		crg    = "Microsoft.Compute/capacityReservationGroups"
		snaps  = "Microsoft.Compute/snapshots"
	)
	cases := map[string]struct {
		reason string
		kinds  []string
		ev     map[string]*evidence
		ask    string
		want   string // the code of the rule, "" for none
	}{
		"Agree": {
			reason: "two nested types of a provider recorded alike make the rule for a third",
			kinds:  []string{rules, peers, subnet},
			ev:     map[string]*evidence{"microsoft.network/routetables/routes": notFound("NotFound", "a.yaml #1"), "microsoft.network/virtualnetworks/virtualnetworkpeerings": notFound("NotFound", "b.yaml #2")},
			ask:    subnet,
			want:   "NotFound",
		},
		"OneType": {
			reason: "one recorded type is no provider rule",
			kinds:  []string{rules, subnet},
			ev:     map[string]*evidence{"microsoft.network/routetables/routes": notFound("NotFound", "a.yaml #1")},
			ask:    subnet,
		},
		"Disagree": {
			reason: "a provider whose recorded types differ has no rule (Compute: disks NotFound, capacity reservation groups ResourceNotFound)",
			kinds:  []string{disks, crg, snaps},
			ev:     map[string]*evidence{"microsoft.compute/disks": notFound("NotFound", "a.yaml #1"), "microsoft.compute/capacityreservationgroups": notFound("ResourceNotFound", "b.yaml #2")},
			ask:    snaps,
		},
		"OtherLevel": {
			reason: "nested types make no rule for a top-level type",
			kinds:  []string{rules, peers, vnet},
			ev:     map[string]*evidence{"microsoft.network/routetables/routes": notFound("NotFound", "a.yaml #1"), "microsoft.network/virtualnetworks/virtualnetworkpeerings": notFound("NotFound", "b.yaml #2")},
			ask:    vnet,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var kinds []*model.Kind
			for _, k := range tc.kinds {
				kinds = append(kinds, kind(k))
			}
			got := ""
			if e := learnProviderRules(kinds, tc.ev).notFoundFor(tc.ask); e != nil {
				got = e.Code
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nnotFoundFor(%s) (-want +got):\n%s", tc.reason, tc.ask, diff)
			}
		})
	}
}

func errorOf404(code string) recording.Error {
	return recording.Error{Status: 404, Code: code}
}
