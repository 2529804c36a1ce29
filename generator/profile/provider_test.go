package profile

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/recording"
)

func TestProviderRules(t *testing.T) {
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
		des    = "Microsoft.Compute/diskEncryptionSets"
	)
	// The spec folders of the kinds (serviceOf): Compute's disk types
	// are DiskRP's, its capacity reservation groups ComputeRP's.
	folder := map[string]string{
		disks: "specification/compute/resource-manager/Microsoft.Compute/DiskRP/stable/2023-10-02/disk.json",
		snaps: "specification/compute/resource-manager/Microsoft.Compute/DiskRP/stable/2023-10-02/snapshot.json",
		des:   "specification/compute/resource-manager/Microsoft.Compute/DiskRP/stable/2023-10-02/diskEncryptionSet.json",
		crg:   "specification/compute/resource-manager/Microsoft.Compute/ComputeRP/stable/2024-03-01/capacityReservation.json",
	}
	kind := func(armType string) *model.Kind {
		r := &tree.Resource{ARMType: armType}
		if f := folder[armType]; f != "" {
			r.Ops = map[string]*tree.Operation{"GET": {Method: "GET", Origin: load.Origin{File: f}}}
		}
		return &model.Kind{Resource: r}
	}
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
		"Service": {
			reason: "two types of one service (Compute's DiskRP) recorded alike make its rule for a third, though the namespace's types disagree",
			kinds:  []string{disks, crg, snaps, des},
			ev:     map[string]*evidence{"microsoft.compute/disks": notFound("NotFound", "a.yaml #1"), "microsoft.compute/snapshots": notFound("NotFound", "c.yaml #3"), "microsoft.compute/capacityreservationgroups": notFound("ResourceNotFound", "b.yaml #2")},
			ask:    des,
			want:   "NotFound",
		},
		"OtherService": {
			reason: "a service's rule is not another service's (capacity reservation groups are ComputeRP's)",
			kinds:  []string{disks, snaps, crg},
			ev:     map[string]*evidence{"microsoft.compute/disks": notFound("NotFound", "a.yaml #1"), "microsoft.compute/snapshots": notFound("NotFound", "c.yaml #3")},
			ask:    crg,
			want:   "NotFound", // the namespace's rule: its only recorded types agree
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
			if e := learnProviderRules(kinds, tc.ev).notFoundFor(kind(tc.ask)); e != nil {
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

// TestReferenceRules: a PUT naming a missing resource is refused alike by
// the recorded types of two providers: an ARM-wide rule for the others;
// a type recorded accepting such a PUT (a Private DNS link to a virtual
// network made after it) disagrees, and then there is none.
func TestReferenceRules(t *testing.T) {
	const (
		vm   = "Microsoft.Compute/virtualMachines"
		site = "Microsoft.Web/sites"
		link = "Microsoft.Network/privateDnsZones/virtualNetworkLinks"
		nic  = "Microsoft.Network/networkInterfaces"
	)
	kinds := []*model.Kind{}
	for _, t := range []string{vm, site, link, nic} {
		kinds = append(kinds, &model.Kind{Resource: &tree.Resource{ARMType: t}})
	}
	refused := func(where string) *evidence {
		return &evidence{referenceNotFound: []seen{{where: where, err: errorOf404("NotFound")}}}
	}
	ev := map[string]*evidence{"microsoft.compute/virtualmachines": refused("vm.yaml #9"), "microsoft.web/sites": refused("site.yaml #2")}
	if e := learnProviderRules(kinds, ev).referenceNotFoundFor(nic); e == nil || e.Code != "NotFound" {
		t.Errorf("two providers refusing alike: rule %+v, want 404 NotFound for a third provider's type", e)
	}
	ev["microsoft.network/privatednszones/virtualnetworklinks"] = &evidence{referenceAccepted: []seen{{where: "pdz.yaml #9"}}}
	if e := learnProviderRules(kinds, ev).referenceNotFoundFor(nic); e != nil {
		t.Errorf("a type recorded accepting such a PUT disagrees: rule %+v, want none", e)
	}
}
