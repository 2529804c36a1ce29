package refs_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/generator/refs"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// specRoot returns the Azure specs of specs/armature.yaml and the config,
// or skips the test when the specs are not on this machine (as the
// generator's corpus tests do).
func specRoot(t *testing.T) (string, *config.Config) {
	t.Helper()
	cfg, err := config.Load("../../specs/armature.yaml")
	if err != nil {
		t.Fatal(err)
	}
	root := config.ResolveSpecRoot("", cfg, cfg.Dir)
	if _, err := os.Stat(filepath.Join(root, "specification")); err != nil {
		alt := filepath.Join(cfg.Dir, "..", "shared", "specs", "azure-rest-api-specs")
		if _, err := os.Stat(filepath.Join(alt, "specification")); err != nil {
			t.Skipf("the Azure specs are not at %s: run hack/sync-specs.sh or set %s (CI always has ../shared/specs)", root, config.EnvSpecRoot)
		}
		root = alt
	}
	return root, cfg
}

const (
	network = "specification/network/resource-manager/Microsoft.Network/stable/2024-01-01/"
	aks     = "specification/containerservice/resource-manager/Microsoft.ContainerService/aks/stable/2024-02-01/managedClusters.json"
	kv      = "specification/keyvault/resource-manager/Microsoft.KeyVault/stable/2023-07-01/keyvault.json"
	authz   = "specification/authorization/resource-manager/Microsoft.Authorization/stable/2022-04-01/authorization-RoleAssignmentsCalls.json"
	web     = "specification/web/resource-manager/Microsoft.Web/stable/2023-12-01/WebApps.json"
	sql     = "specification/sql/resource-manager/Microsoft.Sql/stable/2021-11-01/VirtualNetworkRules.json"
)

// TestGolden detects the references of kinds of the real swagger, with the
// references entries of specs/armature.yaml, and compares them with
// testdata/golden/<case>.json. Refresh with `go test ./generator/refs -run
// TestGolden -update` and review the diff (testdata/README.md).
func TestGolden(t *testing.T) {
	cases := map[string]struct {
		reason string
		file   string
		kinds  []string
	}{
		"network-interface": {reason: "ipConfigurations' subnet and publicIPAddress are whole Subnet and PublicIPAddress bodies; the NSG; application gateway pools are named parts of a gateway", file: network + "networkInterface.json", kinds: []string{"NetworkInterface"}},
		"network-subnet":    {reason: "the NSG and route table on a subnet; the subnet's own id and its delegations' are no references", file: network + "virtualNetwork.json", kinds: []string{"VirtualNetworksSubnet"}},
		"network-publicip":  {reason: "a public IP's NAT gateway (a whole body), its prefix and DDoS plan (SubResources)", file: network + "publicIpAddress.json", kinds: []string{"PublicIPAddress"}},
		"containerservice":  {reason: "an agent pool's vnetSubnetID and podSubnetID: x-ms-arm-id-details with the subnet type", file: aks, kinds: []string{"ManagedClustersAgentPool"}},
		"keyvault":          {reason: "a vault's virtual network rules: an id described as a subnet's full resource id", file: kv, kinds: []string{"Vault", "VaultsPrivateEndpointConnection"}},
		"private-endpoint":  {reason: "a private endpoint's privateLinkServiceId (a Key Vault, in the examples) and its subnet", file: network + "privateEndpoint.json", kinds: []string{"PrivateEndpoint"}},
		"authorization":     {reason: "roleDefinitionId by the references entry of specs/armature.yaml; principalId is a GUID, no reference", file: authz, kinds: []string{"RoleAssignment"}},
		"web":               {reason: "a site's serverFarmId: Resource ID of the plan, written out", file: web, kinds: []string{"Site"}},
		"sql":               {reason: "a virtual network rule's virtualNetworkSubnetId", file: sql, kinds: []string{"ServersVirtualNetworkRule"}},
	}
	root, cfg := specRoot(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// The shipped overrides and facts give the classes; every kind
			// of the file is analysed (no include).
			c := &config.Config{Files: []string{tc.file}, Overrides: cfg.Overrides, Facts: cfg.Facts, Dir: cfg.Dir, File: cfg.File}
			a, err := generator.Analyze(generator.Options{SpecRoot: root, Files: c.Files, Config: c})
			if err != nil {
				t.Fatal(err)
			}
			rep := refs.Find(a.Loader, a.Model.Packages, override.NewRefs("specs/armature.yaml", cfg.References))
			var got []refs.Kind
			for _, want := range tc.kinds {
				found := false
				for _, k := range rep.Kinds {
					if k.Kind == want {
						got, found = append(got, k), true
					}
				}
				if !found {
					t.Fatalf("no kind %s in %s", want, tc.file)
				}
			}
			b, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, '\n')
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./generator/refs -run TestGolden -update writes it)", err)
			}
			if diff := cmp.Diff(string(want), string(b)); diff != "" {
				t.Errorf("%s: %s (-want +got):\n%s", tc.reason, golden, diff)
			}
		})
	}
}
