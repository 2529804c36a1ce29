package tree

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestEmbedded: the collections of a parent's PUT body that are child
// resource types are marked, by schema identity (subnets) or by the
// child's type segment (rules, whose items are another definition); an
// array of objects that no child type serves (peers) is not.
func TestEmbedded(t *testing.T) {
	l := load.New("../testdata/embedded/input")
	doc, err := l.Load("fabrikam.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, errs := Build(l, []*load.Document{doc})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []Embedded{
		{Path: descriptor.P("properties", "rules"), ARMType: "Microsoft.Fabrikam/nets/rules", By: "name"},
		{Path: descriptor.P("properties", "subnets"), ARMType: "Microsoft.Fabrikam/nets/subnets", By: "schema"},
	}
	if diff := cmp.Diff(want, tr.Resource("Microsoft.Fabrikam/nets").Embedded); diff != "" {
		t.Errorf("nets -want +got:\n%s", diff)
	}
	for _, r := range tr.Resources {
		if r.ARMType != "Microsoft.Fabrikam/nets" && len(r.Embedded) > 0 {
			t.Errorf("%s has no embedded child collection: %v", r.ARMType, r.Embedded)
		}
	}
}

// TestEmbeddedNetwork: over the real Microsoft.Network 2024-01-01 swagger
// the collections the issue names are marked, and nothing else of those
// parents.
func TestEmbeddedNetwork(t *testing.T) {
	const dir = "specification/network/resource-manager/Microsoft.Network/stable/2024-01-01"
	root := "../../specs/azure-rest-api-specs"
	if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
		t.Skipf("the azure-rest-api-specs corpus is not here (%v): run hack/sync-specs.sh", err)
	}
	l := load.New(root)
	var docs []*load.Document
	for _, f := range []string{"virtualNetwork.json", "networkSecurityGroup.json", "routeTable.json", "loadBalancer.json"} {
		d, err := l.Load(dir + "/" + f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	tr, _ := Build(l, docs)
	got := map[string][]string{}
	for _, r := range tr.Resources {
		for _, e := range r.Embedded {
			got[r.ARMType] = append(got[r.ARMType], e.Path.String()+" → "+e.ARMType+" ("+e.By+")")
		}
	}
	want := map[string][]string{
		"Microsoft.Network/loadBalancers": {
			"properties.backendAddressPools → Microsoft.Network/loadBalancers/backendAddressPools (schema)",
			"properties.inboundNatRules → Microsoft.Network/loadBalancers/inboundNatRules (schema)",
		},
		"Microsoft.Network/networkSecurityGroups": {"properties.securityRules → Microsoft.Network/networkSecurityGroups/securityRules (schema)"},
		"Microsoft.Network/routeTables":           {"properties.routes → Microsoft.Network/routeTables/routes (schema)"},
		"Microsoft.Network/virtualNetworks": {
			"properties.subnets → Microsoft.Network/virtualNetworks/subnets (schema)",
			"properties.virtualNetworkPeerings → Microsoft.Network/virtualNetworks/virtualNetworkPeerings (schema)",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}
