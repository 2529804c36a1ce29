package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// corpus returns the options for the real Azure specs of specs/armature.yaml,
// or skips the test when the specs are not on this machine.
func corpus(tb testing.TB) generator.Options {
	tb.Helper()
	cfg, err := config.Load("../specs/armature.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	root := config.ResolveSpecRoot("", cfg, cfg.Dir)
	if _, err := os.Stat(filepath.Join(root, "specification")); err != nil {
		for _, alt := range []string{filepath.Join(cfg.Dir, "..", "shared", "specs", "azure-rest-api-specs")} {
			if _, err := os.Stat(filepath.Join(alt, "specification")); err == nil {
				root = alt
				break
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "specification")); err != nil {
		tb.Skipf("the Azure specs are not at %s: run hack/sync-specs.sh or set %s (CI always has ../shared/specs)", root, config.EnvSpecRoot)
	}
	return generator.Options{SpecRoot: root, Files: cfg.Files, Config: cfg, Domain: cfg.Domain}
}

func analyzeCorpus(t *testing.T) *generator.Analysis {
	t.Helper()
	a, err := generator.Analyze(corpus(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Errors) > 0 {
		t.Fatalf("the shared corpus must analyse without errors: %v", a.Errors)
	}
	return a
}

// TestCorpusClassification checks facts read off the real swagger (the
// comment says where).
func TestCorpusClassification(t *testing.T) {
	a := analyzeCorpus(t)
	cases := map[string]struct {
		armType string
		path    string
		want    classify.Class
		why     string
	}{
		"StorageLocation":      {"Microsoft.Storage/storageAccounts", "location", classify.CreateOnly, "StorageAccountCreateParameters has it, StorageAccountUpdateParameters does not"},
		"StorageExtLocation":   {"Microsoft.Storage/storageAccounts", "extendedLocation", classify.CreateOnly, "PUT body only"},
		"StorageSku":           {"Microsoft.Storage/storageAccounts", "sku", classify.Writable, "readOnly in the GET type StorageAccount, but in the PUT and PATCH bodies"},
		"StorageSkuName":       {"Microsoft.Storage/storageAccounts", "sku.name", classify.Writable, "Sku.name is in both bodies"},
		"StorageKind":          {"Microsoft.Storage/storageAccounts", "kind", classify.Writable, "readOnly in GET, accepted by PUT and PATCH"},
		"StorageAccessTier":    {"Microsoft.Storage/storageAccounts", "properties.accessTier", classify.Writable, "readOnly in StorageAccountProperties, accepted by both bodies"},
		"StorageHns":           {"Microsoft.Storage/storageAccounts", "properties.isHnsEnabled", classify.CreateOnly, "StorageAccountPropertiesCreateParameters only"},
		"StorageNfs":           {"Microsoft.Storage/storageAccounts", "properties.isNfsV3Enabled", classify.CreateOnly, "StorageAccountPropertiesCreateParameters only"},
		"StorageEndpoints":     {"Microsoft.Storage/storageAccounts", "properties.primaryEndpoints", classify.ReadOnly, "GET only"},
		"StorageProvisioning":  {"Microsoft.Storage/storageAccounts", "properties.provisioningState", classify.ReadOnly, "GET only"},
		"StorageID":            {"Microsoft.Storage/storageAccounts", "id", classify.ReadOnly, "GET only"},
		"StorageName":          {"Microsoft.Storage/storageAccounts", "name", classify.ReadOnly, "GET only"},
		"StorageType":          {"Microsoft.Storage/storageAccounts", "type", classify.ReadOnly, "GET only"},
		"StorageKeyType":       {"Microsoft.Storage/storageAccounts", "properties.encryption.services.blob.keyType", classify.CreateOnly, "EncryptionService.keyType: x-ms-mutability [create, read]"},
		"StorageIdentityPrinc": {"Microsoft.Storage/storageAccounts", "identity.userAssignedIdentities.*.principalId", classify.ReadOnly, "UserAssignedIdentity.principalId readOnly (common-types v5)"},
		"StorageIPRule":        {"Microsoft.Storage/storageAccounts", "properties.networkAcls.ipRules[*].value", classify.Writable, "IPRule.value in both bodies"},
		"ContainerLegalHold":   {"Microsoft.Storage/storageAccounts/blobServices/containers", "properties.hasLegalHold", classify.ReadOnly, "ContainerProperties.hasLegalHold readOnly"},
		"KeyVaultLocation":     {"Microsoft.KeyVault/vaults", "location", classify.CreateOnly, "VaultCreateOrUpdateParameters only"},
		"KeyVaultCreateMode":   {"Microsoft.KeyVault/vaults", "properties.createMode", classify.WriteOnly, "x-ms-mutability [create, update]: never read"},
		"KeyVaultTenant":       {"Microsoft.KeyVault/vaults", "properties.tenantId", classify.Writable, "VaultProperties and VaultPatchProperties"},
		"VMSSAdminPassword":    {"Microsoft.Compute/virtualMachineScaleSets", "properties.virtualMachineProfile.osProfile.adminPassword", classify.Secret, "x-ms-secret: true"},
		"VMSSAdminUser":        {"Microsoft.Compute/virtualMachineScaleSets", "properties.virtualMachineProfile.osProfile.adminUsername", classify.CreateOnly, "VirtualMachineScaleSetUpdateOSProfile has no adminUsername"},
		"VMSSUniqueID":         {"Microsoft.Compute/virtualMachineScaleSets", "properties.uniqueId", classify.ReadOnly, "readOnly in VirtualMachineScaleSetProperties"},
		"VMSSCapacity":         {"Microsoft.Compute/virtualMachineScaleSets", "sku.capacity", classify.Writable, "Sku in both bodies"},
		"VMSSZones":            {"Microsoft.Compute/virtualMachineScaleSets", "zones", classify.CreateOnly, "VirtualMachineScaleSetUpdate has no zones"},
		"RedisLocation":        {"Microsoft.Cache/redis", "location", classify.CreateOnly, "RedisCreateParameters.location: x-ms-mutability [create, read]"},
		"RedisStaticIP":        {"Microsoft.Cache/redis", "properties.staticIP", classify.CreateOnly, "x-ms-mutability [create, read]"},
		"RedisAccessKeys":      {"Microsoft.Cache/redis", "properties.accessKeys", classify.ReadOnly, "RedisResource only"},
		"RedisMaxmemory":       {"Microsoft.Cache/redis", "properties.redisConfiguration.maxmemory-policy", classify.Writable, "RedisCommonProperties in both bodies"},
		"MSILocation":          {"Microsoft.ManagedIdentity/userAssignedIdentities", "location", classify.CreateOnly, "TrackedResource.location: x-ms-mutability [read, create]"},
		"MSIPrincipal":         {"Microsoft.ManagedIdentity/userAssignedIdentities", "properties.principalId", classify.ReadOnly, "UserAssignedIdentityProperties is readOnly"},
		"RGLocation":           {"Microsoft.Resources/resourceGroups", "location", classify.CreateOnly, "ResourceGroupPatchable has no location"},
		"RGManagedBy":          {"Microsoft.Resources/resourceGroups", "managedBy", classify.Writable, "ResourceGroup and ResourceGroupPatchable"},
		"RGProvisioning":       {"Microsoft.Resources/resourceGroups", "properties.provisioningState", classify.ReadOnly, "readOnly in ResourceGroupProperties"},
		"VaultProvisioning":    {"Microsoft.KeyVault/vaults", "properties.provisioningState", classify.ReadOnly, "no readOnly in VaultProperties: the ARM-wide rule (the service fills provisioningState)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tb := a.Tables[strings.ToLower(tc.armType)]
			if tb == nil {
				t.Fatalf("%s was not classified", tc.armType)
			}
			e, ok := tb.Entry(descriptor.MustParsePath(tc.path))
			if !ok {
				t.Fatalf("%s has no property %s", tc.armType, tc.path)
			}
			if e.Class != tc.want {
				t.Errorf("%s %s = %s (%s), want %s: %s", tc.armType, tc.path, e.Class, e.Rule, tc.want, tc.why)
			}
		})
	}
}

// TestCorpusOverrides checks the corrections specs/armature.yaml makes to
// the real swagger (its comments give the evidence): each changes the class
// the rules give, says why, and leaves the property out of the spec.
func TestCorpusOverrides(t *testing.T) {
	a := analyzeCorpus(t)
	cases := map[string]struct {
		armType   string
		path      string
		was, want classify.Class
	}{
		"VaultURI":             {"Microsoft.KeyVault/vaults", "properties.vaultUri", classify.CreateOnly, classify.ReadOnly},
		"StorageVNetRuleState": {"Microsoft.Storage/storageAccounts", "properties.networkAcls.virtualNetworkRules[*].state", classify.Writable, classify.ReadOnly},
		"VMExtensionView":      {"Microsoft.Compute/virtualMachines/extensions", "properties.instanceView", classify.CreateOnly, classify.ReadOnly},
		"VMSSVMExtensionView":  {"Microsoft.Compute/virtualMachineScaleSets/virtualMachines/extensions", "properties.instanceView", classify.CreateOnly, classify.ReadOnly},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k := a.Model.Kinds[strings.ToLower(tc.armType)]
			if k == nil {
				t.Fatalf("%s was not modelled", tc.armType)
			}
			e, ok := k.Table.Entry(descriptor.MustParsePath(tc.path))
			if !ok {
				t.Fatalf("%s has no property %s", tc.armType, tc.path)
			}
			if e.Class != tc.want || e.Was != tc.was || !strings.HasPrefix(e.Rule, classify.RuleOverride) || e.Override == nil || e.Override.Because == "" {
				t.Errorf("%s %s = %s (was %q, rule %q), want %s (was %s) by an override with a reason", tc.armType, tc.path, e.Class, e.Was, e.Rule, tc.want, tc.was)
			}
			if inSpec(k.Spec, tc.path) {
				t.Errorf("spec.%s is still in the spec", tc.path)
			}
		})
	}
	if !inSpec(a.Model.Kinds["microsoft.keyvault/vaults"].Spec, "properties.tenantId") || !inSpec(a.Model.Kinds["microsoft.storage/storageaccounts"].Spec, "properties.networkAcls.virtualNetworkRules[*].id") {
		t.Error("inSpec must find fields that are in the spec")
	}
	sa := a.Model.Kinds["microsoft.storage/storageaccounts"]
	if len(sa.Defaults) != 1 || sa.Defaults[0].Path.String() != "properties.minimumTlsVersion" || sa.Defaults[0].JSON != `"TLS1_2"` {
		t.Errorf("StorageAccount defaults = %+v, want properties.minimumTlsVersion = \"TLS1_2\"", sa.Defaults)
	}
}

// inSpec reports whether a dotted path (`[*]` for array items) names a field
// of the spec.
func inSpec(st *model.Struct, path string) bool {
	segs := strings.Split(path, ".")
	for i, seg := range segs {
		name := strings.TrimSuffix(seg, "[*]")
		var f *model.Field
		for _, x := range st.Fields {
			if x.JSONName == name {
				f = x
			}
		}
		if f == nil {
			return false
		}
		if i == len(segs)-1 {
			return true
		}
		t := f.Type
		for t.Kind == model.Slice || t.Kind == model.Map {
			t = t.Elem
		}
		if t.Kind != model.StructRef {
			return false
		}
		st = t.Struct
	}
	return false
}

func TestCorpusTree(t *testing.T) {
	a := analyzeCorpus(t)
	get := func(armType string) (scope, owner, singleton string, verbs, lro, actions, status string) {
		res := a.Tree.Resource(armType)
		if res == nil {
			t.Fatalf("%s not in the tree", armType)
		}
		var acts, sts []string
		for _, x := range res.Actions {
			acts = append(acts, x.Name)
		}
		for _, x := range res.StatusGETs {
			sts = append(sts, x.Name)
		}
		return string(res.Scope), res.Owner, res.Singleton, strings.Join(res.Verbs(), ","), strings.Join(res.LongRunning(), ","), strings.Join(acts, ","), strings.Join(sts, ",")
	}
	type row struct{ scope, owner, singleton, verbs, lro, actions, status string }
	cases := map[string]row{
		"Microsoft.Resources/resourceGroups":                        {scope: "subscription", owner: "Microsoft.Resources/subscriptions", verbs: "DELETE,GET,PATCH,PUT", lro: "DELETE"},
		"Microsoft.Storage/storageAccounts/blobServices":            {scope: "resourceGroup", owner: "Microsoft.Storage/storageAccounts", singleton: "default", verbs: "GET,PUT"},
		"Microsoft.Storage/storageAccounts/blobServices/containers": {scope: "resourceGroup", owner: "Microsoft.Storage/storageAccounts/blobServices", verbs: "DELETE,GET,PATCH,PUT", actions: "clearLegalHold,lease,migrate,setLegalHold"},
		"Microsoft.Cache/redis/patchSchedules":                      {scope: "resourceGroup", owner: "Microsoft.Cache/redis", singleton: "default", verbs: "DELETE,GET,PUT"},
		"Microsoft.Compute/virtualMachineScaleSets/extensions":      {scope: "resourceGroup", owner: "Microsoft.Compute/virtualMachineScaleSets", verbs: "DELETE,GET,PATCH,PUT", lro: "DELETE,PATCH,PUT"},
	}
	for armType, want := range cases {
		var got row
		got.scope, got.owner, got.singleton, got.verbs, got.lro, got.actions, got.status = get(armType)
		if got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", armType, got, want)
		}
	}
	// Spot checks on long lists.
	_, _, _, _, lro, actions, status := get("Microsoft.Storage/storageAccounts")
	if lro != "PUT" || !strings.Contains(actions, "listKeys") || !strings.Contains(actions, "regenerateKey") || !strings.Contains(actions, "failover") || status != "" {
		t.Errorf("storageAccounts: lro %q actions %q status %q", lro, actions, status)
	}
	_, _, _, _, _, actions, status = get("Microsoft.Compute/virtualMachineScaleSets")
	if status != "instanceView,rollingUpgrades/latest" || !strings.Contains(actions, "rollingUpgrades/cancel") || !strings.Contains(actions, "restart") {
		t.Errorf("virtualMachineScaleSets: actions %q status %q", actions, status)
	}
	skipped := map[string]string{}
	for _, s := range a.Skipped {
		skipped[s.Path] = s.Reason
	}
	for path, want := range map[string]string{
		"/{resourceId}": "generic resource path",
		"/{scope}/providers/Microsoft.Resources/tags/default": "tags",
		"/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{parentResourcePath}/{resourceType}/{resourceName}": "generic resource path",
		"/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.KeyVault/vaults/{vaultName}/accessPolicies/{operationKind}":           "PUT without GET",
		"/subscriptions/{subscriptionId}/providers/Microsoft.Resources/deployments/{deploymentName}":                                                                  "also served at resourceGroup scope",
	} {
		if !strings.Contains(skipped[path], want) {
			t.Errorf("skipped %s: reason %q, want it to mention %q", path, skipped[path], want)
		}
	}
	if n := len(a.Model.Kinds); n < 36 {
		t.Errorf("%d kinds, want every resource of the corpus (36)", n)
	}
}

// TestCommittedGeneratedIsCurrent regenerates the corpus and compares with
// the committed generated/ folder: the test form of `make verify`.
func TestCommittedGeneratedIsCurrent(t *testing.T) {
	opts := corpus(t)
	opts.OutDir = t.TempDir()
	opts.ImportPath = "github.com/armature-dev/armature/generated"
	res, err := generator.Generate(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	got := readTree(t, opts.OutDir)
	want := readTree(t, "../generated")
	var stale []string
	for _, p := range union(want, got) {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		if string(want[p]) != string(got[p]) {
			stale = append(stale, p)
		}
	}
	if len(stale) > 0 {
		t.Errorf("generated/ is stale in %d files (run make generate): %v", len(stale), stale)
	}
}
