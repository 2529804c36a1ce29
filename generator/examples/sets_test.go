package examples_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/examples"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// setKind is a kind of a test set.
func setKind(pkg *model.Package, name, armType, owner string, refs ...descriptor.Reference) *model.Kind {
	return &model.Kind{
		Name: name, Package: pkg, Table: &classify.Table{}, References: refs,
		Resource: &tree.Resource{ARMType: armType, Owner: owner, Scope: descriptor.ScopeResourceGroup},
	}
}

// objects decodes a set file: kind/name → object.
func objects(t *testing.T, b []byte) (map[string]map[string]any, []string) {
	t.Helper()
	out := map[string]map[string]any{}
	var order []string
	for _, doc := range strings.Split(string(b), "\n---\n")[1:] {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		key := m["kind"].(string) + "/" + m["metadata"].(map[string]any)["name"].(string)
		out[key] = m
		order = append(order, key)
	}
	return out, order
}

func TestSets(t *testing.T) {
	res := &model.Package{Group: "resources.azure.armature.dev", Version: "v20240301"}
	net := &model.Package{Group: "network.azure.armature.dev", Version: "v20240101"}
	const subnetType = "Microsoft.Network/virtualNetworks/subnets"
	rg := setKind(res, "ResourceGroup", tree.ResourceGroupType, tree.SubscriptionType)
	vnet := setKind(net, "VirtualNetwork", "Microsoft.Network/virtualNetworks", tree.ResourceGroupType)
	subnet := setKind(net, "VirtualNetworksSubnet", subnetType, "Microsoft.Network/virtualNetworks")
	nic := setKind(net, "NetworkInterface", "Microsoft.Network/networkInterfaces", tree.ResourceGroupType,
		descriptor.Reference{Path: descriptor.Path{"properties", "ipConfigurations", descriptor.Items, "properties", "subnet", "id"}, Targets: []string{"network.azure.armature.dev/VirtualNetworksSubnet"}},
		descriptor.Reference{Path: descriptor.Path{"properties", "ipConfigurations", descriptor.Items, "properties", "publicIPAddress", "id"}})
	const foreign = "/subscriptions/subid/resourceGroups/rg1/providers/Microsoft.Network/"
	samples := []examples.Sample{
		{Kind: rg, Example: examples.Example{Title: "rg", Names: []string{"rg1"}, Body: map[string]any{"location": "eastus"}}},
		// No example: made as the subnet's owner.
		{Kind: vnet},
		{Kind: subnet, Example: examples.Example{Title: "subnet", Names: []string{"rg1-vnet", "default"}, Body: map[string]any{
			"properties": map[string]any{"addressPrefix": "10.0.0.0/24"}}}},
		{Kind: nic, Example: examples.Example{Title: "nic", Names: []string{"test-nic"}, Body: map[string]any{
			"location": "eastus",
			"properties": map[string]any{
				"ipConfigurations": []any{map[string]any{"name": "ipconfig1", "properties": map[string]any{
					"subnet":          map[string]any{"id": foreign + "virtualNetworks/rg1-vnet/subnets/default"},
					"publicIPAddress": map[string]any{"id": foreign + "publicIPAddresses/test-ip"},
				}}},
				"networkSecurityGroup": map[string]any{"id": foreign + "networkSecurityGroups/nsg"},
				"dnsSettings":          map[string]any{"dnsServers": []any{"10.0.0.1"}},
			},
		}}},
	}
	sets, notes := examples.Sets(samples, "header")
	if len(notes) > 0 {
		t.Errorf("notes: %v", notes)
	}
	objs, order := objects(t, sets["network.azure.armature.dev"].CRs)
	cases := map[string]struct {
		reason string
		got    any
		want   any
	}{
		"Order": {
			reason: "the resource group first, each object after its owner and what it references",
			got:    order,
			want:   []string{"ResourceGroup/samples-network", "VirtualNetwork/network-virtualnetwork", "VirtualNetworksSubnet/network-rg1-vnet-default", "NetworkInterface/network-test-nic"},
		},
		"RefsAndDroppedIDs": {
			reason: "an id of a kind with a sample becomes the …Ref to the set's object; others go, with the objects they leave empty",
			got:    objs["NetworkInterface/network-test-nic"]["spec"],
			want: map[string]any{
				"azureName": "test-nic", "location": "eastus", "owner": map[string]any{"name": "samples-network"},
				"properties": map[string]any{
					"ipConfigurations": []any{map[string]any{"name": "ipconfig1", "properties": map[string]any{
						"subnet": map[string]any{"idRef": map[string]any{"kind": "VirtualNetworksSubnet", "name": "network-rg1-vnet-default"}},
					}}},
					"dnsSettings": map[string]any{"dnsServers": []any{"10.0.0.1"}},
				},
			},
		},
		"BareOwner": {
			reason: "an owner kind without an example is made with a name (and a location when its table has one)",
			got:    objs["VirtualNetwork/network-virtualnetwork"]["spec"],
			want:   map[string]any{"azureName": "sample-virtualnetwork", "owner": map[string]any{"name": "samples-network"}},
		},
		"ChildOwner": {
			reason: "a child's owner is its owner's object in the set",
			got:    objs["VirtualNetworksSubnet/network-rg1-vnet-default"]["spec"].(map[string]any)["owner"],
			want:   map[string]any{"name": "network-virtualnetwork"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
	if _, ok := sets["resources.azure.armature.dev"]; !ok {
		t.Errorf("no set for the resource group's own group")
	}
}
