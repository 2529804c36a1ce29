package webhook

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestValidateIgnoreChanges: spec.operatorSpec.ignoreChanges names paths
// the kind has, not read-only; each refusal names the entry's field path.
func TestValidateIgnoreChanges(t *testing.T) {
	reg := New(allDescriptors())
	const entries = `{"ignoreChanges": ["tags", "tags.costCenter", "properties.accessTier", "properties.networkAcls.ipRules[*].value",
		"properties.nope", "properties.provisioningState", "properties.networkAcls.ipRules[0].value", "azureName", "properties..x"]}`
	obj := build(t, storageAccountJSON, set("spec.operatorSpec", entries))
	got := verdict(t, reg.ValidatingHandler().Handle(context.Background(), request(t, admissionv1.Create, storageAccountGVK, obj, nil)))
	want := []string{
		`spec.operatorSpec.ignoreChanges[4]: Invalid value: "properties.nope": StorageAccount has no property properties.nope: ignoreChanges names paths of the spec from the ARM body root (properties.x, tags), as ` + "`armature inspect --properties`" + ` lists them`,
		`spec.operatorSpec.ignoreChanges[5]: Invalid value: "properties.provisioningState": properties.provisioningState is read-only: Azure sets it and the operator never sends it, so there is no change to ignore`,
		`spec.operatorSpec.ignoreChanges[6]: Invalid value: "properties.networkAcls.ipRules[0].value": properties.networkAcls.ipRules[0] names one array item by its index; use [*] (every item): an index names another item once items move`,
		`spec.operatorSpec.ignoreChanges[7]: Invalid value: "azureName": spec.azureName is an operator field, never sent to Azure: there is no change to ignore`,
		`spec.operatorSpec.ignoreChanges[8]: Invalid value: "properties..x": not a property path (path "properties..x": empty property name at offset 11); write it as ` + "`armature inspect --properties`" + ` does, from the ARM body root: tags, properties.agentPoolProfiles[*].count`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}

// TestIgnorePathAKS: the example paths on a managed cluster and an
// agent pool.
func TestIgnorePathAKS(t *testing.T) {
	kinds := map[string]*descriptor.Descriptor{}
	for _, d := range allDescriptors() {
		if d.Group == "containerservice.azure.armature.dev" {
			kinds[d.Kind] = d
		}
	}
	cases := map[string]struct {
		kind, path string
		ok         bool
	}{
		"ClusterPoolCount":   {kind: "ManagedCluster", path: "properties.agentPoolProfiles[*].count", ok: true},
		"ClusterTags":        {kind: "ManagedCluster", path: "tags", ok: true},
		"ClusterTagKey":      {kind: "ManagedCluster", path: "tags.costCenter", ok: true},
		"ClusterFQDN":        {kind: "ManagedCluster", path: "properties.fqdn"},
		"PoolCount":          {kind: "ManagedClustersAgentPool", path: "properties.count", ok: true},
		"PoolCountMisspelt":  {kind: "ManagedClustersAgentPool", path: "properties.counts"},
		"ClusterItemsOfNone": {kind: "ManagedCluster", path: "properties.dnsPrefix[*]"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := kinds[tc.kind]
			if d == nil {
				t.Fatalf("no kind %s", tc.kind)
			}
			detail := (&checker{d: d}).ignorePath(tc.path)
			if (detail == "") != tc.ok {
				t.Errorf("%s %s: accepted %v (%q), want %v", tc.kind, tc.path, detail == "", detail, tc.ok)
			}
		})
	}
}
