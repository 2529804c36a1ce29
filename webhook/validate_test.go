package webhook

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/armature-dev/armature/api/core"
	resources "github.com/armature-dev/armature/generated/apis/resources/v20240301"
	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	contoso "github.com/armature-dev/armature/generator/testdata/contoso/expected/apis/contoso/v20240101preview"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// createOnlyErr is the expected create-only error, written out here rather
// than taken from the package's constant.
func createOnlyErr(path, was, now string) string {
	return path + ": Forbidden: field is create-only (was " + was + ", now " + now + "); delete and recreate the resource to change it"
}

// immutableErr is the expected error for an operator field once the
// resource exists in Azure.
func immutableErr(path, was, now string) string {
	return path + ": Forbidden: field cannot change once the resource exists in Azure (status.id is set; was " + was + ", now " + now + "); delete and recreate the custom resource to change it"
}

const (
	readOnlyErr = ": Forbidden: field is read-only: Azure sets it and the operator reports it in status; remove it from spec"
	secretErr   = ": Invalid value: must be a Secret key reference {name: <Secret name>, key: <key>} (the value given is not shown); put the value in a Secret in the same namespace and reference it"

	nicPath  = "spec.properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations"
	statusID = `"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/team-a-rg/providers/Microsoft.Storage/storageAccounts/media"`
)

// TestValidate runs the validating handler over real Descriptors. Each case
// fails when the check it names is removed.
func TestValidate(t *testing.T) {
	reg := New(allDescriptors())
	type args struct {
		gvk     schema.GroupVersionKind
		fixture string
		// base edits the fixture into the stored object; change edits the
		// stored object into the new one. Without old, the request is a
		// create of base+change.
		base, change []edit
		create       bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   []string
	}{
		"LocationChanged": {
			reason: "location is createOnly: the message of the issue, exactly",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, change: []edit{set("spec.location", `"northeurope"`)}},
			want:   []string{`spec.location: Forbidden: field is create-only (was "westeurope", now "northeurope"); delete and recreate the resource to change it`},
		},
		"NestedCreateOnlyChanged": {
			reason: "properties.isHnsEnabled is createOnly below a writable object; non-strings render as JSON",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, change: []edit{set("spec.properties.isHnsEnabled", `false`)}},
			want:   []string{createOnlyErr("spec.properties.isHnsEnabled", "true", "false")},
		},
		"NestedCreateOnlyRemoved": {
			reason: "removing a createOnly value is a change",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, change: []edit{del("spec.properties.isHnsEnabled")}},
			want:   []string{createOnlyErr("spec.properties.isHnsEnabled", "true", "unset")},
		},
		"ParentOfCreateOnlyRemoved": {
			reason: "removing the writable parent removes the createOnly values below it",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, change: []edit{del("spec.properties.encryption")}},
			want: []string{
				createOnlyErr("spec.properties.encryption.services.blob.keyType", `"Account"`, "unset"),
				createOnlyErr("spec.properties.encryption.services.file.keyType", `"Account"`, "unset"),
			},
		},
		"CreateOnlyObjectAdded": {
			reason: "adding extendedLocation after creation is a presence change",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON,
				change: []edit{set("spec.extendedLocation", `{"name":"losangeles","type":"EdgeZone"}`)}},
			want: []string{createOnlyErr("spec.extendedLocation", "unset", `{"name":"losangeles","type":"EdgeZone"}`)},
		},
		"CreateOnlyObjectRemoved": {
			reason: "removing extendedLocation is a presence change",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON,
				base: []edit{set("spec.extendedLocation", `{"name":"losangeles","type":"EdgeZone"}`)}, change: []edit{del("spec.extendedLocation")}},
			want: []string{createOnlyErr("spec.extendedLocation", `{"name":"losangeles","type":"EdgeZone"}`, "unset")},
		},
		"CreateOnlyObjectMemberChanged": {
			reason: "a change inside a createOnly object is reported at the member",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON,
				base: []edit{set("spec.extendedLocation", `{"name":"losangeles","type":"EdgeZone"}`)}, change: []edit{set("spec.extendedLocation.name", `"dallas"`)}},
			want: []string{createOnlyErr("spec.extendedLocation.name", `"losangeles"`, `"dallas"`)},
		},
		"WritableChanged": {
			reason: "accessTier, tags, sku and networkAcls are writable",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, change: []edit{
				set("spec.properties.accessTier", `"Cool"`), set("spec.tags.team", `"b"`), set("spec.sku.name", `"Standard_LRS"`),
				set("spec.properties.networkAcls.ipRules", `[]`),
			}},
		},
		"AzureNameChangedBeforeAzure": {
			reason: "operator fields may change until status.id is set",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, change: []edit{
				set("spec.azureName", `"media2"`), set("spec.owner", `{"name":"other-rg"}`)}},
		},
		"AzureNameChangedInAzure": {
			reason: "azureName is immutable once status.id is set",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON,
				base: []edit{set("status.id", statusID)}, change: []edit{set("spec.azureName", `"media2"`)}},
			want: []string{immutableErr("spec.azureName", `"media"`, `"media2"`)},
		},
		"OwnerAndResourceIDChangedInAzure": {
			reason: "owner and resourceID are immutable once status.id is set, presence included",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON,
				base: []edit{set("status.id", statusID)},
				change: []edit{set("spec.owner", `{"name":"other-rg"}`),
					set("spec.resourceID", `"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/x/providers/Microsoft.Storage/storageAccounts/y"`)}},
			want: []string{
				immutableErr("spec.owner", `{"name":"team-a-rg"}`, `{"name":"other-rg"}`),
				immutableErr("spec.resourceID", "unset", `"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/x/providers/Microsoft.Storage/storageAccounts/y"`),
			},
		},
		"AzureNameDroppedInAzure": {
			reason: "an absent azureName is metadata.name, which is the same name",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON,
				base: []edit{set("status.id", statusID)}, change: []edit{del("spec.azureName")}},
		},
		"UnchangedSpecRatchets": {
			reason: "a metadata-only update of an object stored with a readOnly value is not refused",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON,
				base: []edit{set("spec.properties.provisioningState", `"Succeeded"`)}, change: []edit{set("metadata.finalizers", `[]`)}},
		},
		"ReadOnlyInSpecOnUpdate": {
			reason: "a readOnly value added on update is refused",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, change: []edit{set("spec.properties.provisioningState", `"Succeeded"`)}},
			want:   []string{"spec.properties.provisioningState" + readOnlyErr},
		},
		"ReadOnlyInSpecOnCreate": {
			reason: "readOnly values at the root, nested and in map values are refused; values are not echoed",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("spec.id", `"/x"`),
				set("spec.properties.provisioningState", `"x"`),
				set("spec.identity.userAssignedIdentities", `{"/subscriptions/s/resourceGroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities/u": {"principalId": "p"}}`),
			}},
			want: []string{
				"spec.id" + readOnlyErr,
				"spec.identity.userAssignedIdentities[/subscriptions/s/resourceGroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities/u].principalId" + readOnlyErr,
				"spec.properties.provisioningState" + readOnlyErr,
			},
		},
		"ValidCreate": {
			reason: "the fixture itself is valid",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true},
		},
		"OwnerOfWrongKind": {
			reason: "a StorageAccount's owner is a resource group, not a storage account",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("spec.owner", `{"armId":"/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/other"}`)}},
			want: []string{`spec.owner.armId: Invalid value: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/other": names a Microsoft.Storage/storageAccounts; the owner of a StorageAccount must be a Microsoft.Resources/resourceGroups`},
		},
		"OwnerARMIDOfRightKind": {
			reason: "a resource group id, in any letter case, is the right owner",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("spec.owner", `{"armId":"/subscriptions/s/resourcegroups/g"}`)}},
		},
		"OwnerNameAndARMID": {
			reason: "an owner is a custom resource or an ARM id, not both",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("spec.owner", `{"name":"rg","armId":"/subscriptions/s/resourceGroups/g"}`)}},
			want: []string{`spec.owner: Invalid value: {"armId":"/subscriptions/s/resourceGroups/g","name":"rg"}: set one of owner.name and owner.armId, not both`},
		},
		"OwnerNotAnARMID": {
			reason: "an armId must parse",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{set("spec.owner", `{"armId":"team-a-rg"}`)}},
			want:   []string{`spec.owner.armId: Invalid value: "team-a-rg": is not an ARM resource id: must start with /subscriptions/ or /providers/`},
		},
		"OwnerARMIDTraversal": {
			reason: "the issue: .. in an owner id would put the resource into another group",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("spec.owner", `{"armId":"/subscriptions/s/resourceGroups/team-a-rg/../other-rg"}`)}},
			want: []string{`spec.owner.armId: Invalid value: "/subscriptions/s/resourceGroups/team-a-rg/../other-rg": is not an ARM resource id: segment 5 ("..") must not be "..": in a URL path it names the current or the parent segment, not a resource`},
		},
		"OwnerARMIDEmptySegment": {
			reason: "an owner id with a slash at the end has an empty segment",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("spec.owner", `{"armId":"/subscriptions/s/resourceGroups/g/"}`)}},
			want: []string{`spec.owner.armId: Invalid value: "/subscriptions/s/resourceGroups/g/": is not an ARM resource id: segment 5 is empty: an ARM id has no "//" and no "/" at the end`},
		},
		"OwnerNameOfUngeneratedKind": {
			reason: "a ResourceGroup's owner is a subscription, which is no custom resource",
			args:   args{gvk: resources.ResourceGroupDescriptor.GroupVersionKind(), fixture: `{"metadata":{"name":"rg"},"spec":{"location":"westeurope","owner":{"name":"sub"}}}`, create: true},
			want:   []string{`spec.owner.name: Invalid value: "sub": the owner of a ResourceGroup is a Microsoft.Resources/subscriptions, which this operator does not manage as a custom resource; set owner.armId instead`},
		},
		"ResourceIDTraversal": {
			reason: "an adopted id of the right type that climbs into another group with ..",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("spec.resourceID", `"/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/../../../../other-rg/providers/Microsoft.Storage/storageAccounts/media"`)}},
			want: []string{`spec.resourceID: Invalid value: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/../../../../other-rg/providers/Microsoft.Storage/storageAccounts/media": is not an ARM resource id: segment 8 ("..") must not be "..": in a URL path it names the current or the parent segment, not a resource`},
		},
		"ResourceIDQuery": {
			reason: "a query in an adopted id would change the request",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("spec.resourceID", `"/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/media?api-version=1"`)}},
			want: []string{`spec.resourceID: Invalid value: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/media?api-version=1": is not an ARM resource id: segment 8 ("media?api-version=1") must not contain '?': it is no part of one segment of an ARM resource id`},
		},
		"ResourceIDValid": {
			reason: "a storage account id adopts",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("spec.resourceID", `"/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/media"`)}},
		},
		"AzureNameTraversal": {
			reason: "the issue: ../x in azureName is no name, the reconciler would put it into the id",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{set("spec.azureName", `"../x"`)}},
			want:   []string{`spec.azureName: Invalid value: "../x": must not contain '/': it is no part of one segment of an ARM resource id`},
		},
		"AzureNameDotDot": {
			reason: ".. alone has no slash but names the parent",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{set("spec.azureName", `".."`)}},
			want:   []string{`spec.azureName: Invalid value: "..": must not be "..": in a URL path it names the current or the parent segment, not a resource`},
		},
		"AzureNamePattern": {
			reason: "the swagger's pattern for accountName: lower-case letters and digits",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{set("spec.azureName", `"Media-Prod"`)}},
			want:   []string{`spec.azureName: Invalid value: "Media-Prod": must match the pattern ^[a-z0-9]+$ (Microsoft.Storage/storageAccounts names do, per its API)`},
		},
		"AdoptedNameNotPatterned": {
			reason: "an adopted resource is named by spec.resourceID: the object's name (defaulted into azureName) need not match the pattern, only be one segment",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("spec.azureName", `"media-prod"`), set("spec.resourceID", `"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/mediaprod"`)}},
		},
		"AzureNameTooShort": {
			reason: "the swagger's minLength for accountName",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{set("spec.azureName", `"md"`)}},
			want:   []string{`spec.azureName: Invalid value: "md": must be at least 3 characters long (Microsoft.Storage/storageAccounts names are, per its API); it has 2`},
		},
		"MetadataNameWithoutAzureName": {
			reason: "without azureName the reconciler uses metadata.name, which is checked at its own path",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				del("spec.azureName"), set("metadata.name", `"media-prod"`)}},
			want: []string{`metadata.name: Invalid value: "media-prod": must match the pattern ^[a-z0-9]+$ (Microsoft.Storage/storageAccounts names do, per its API) (without spec.azureName this is the name in Azure; set spec.azureName to a name Azure accepts)`},
		},
		"AzureNameOverridesMetadataName": {
			reason: "a valid azureName makes a metadata.name Azure would refuse irrelevant",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{
				set("metadata.name", `"media-prod"`)}},
		},
		"AzureNameChangedToTraversal": {
			reason: "an update before Azure may change azureName, but not to a path",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, change: []edit{set("spec.azureName", `"../other-rg"`)}},
			want:   []string{`spec.azureName: Invalid value: "../other-rg": must not contain '/': it is no part of one segment of an ARM resource id`},
		},
		"AzureNameUnchangedRatchets": {
			reason: "a name stored before the check stands: a spec update that keeps it is let through",
			args: args{gvk: storageAccountGVK, fixture: storageAccountJSON,
				base: []edit{set("spec.azureName", `"Media_Old"`)}, change: []edit{set("spec.properties.accessTier", `"Cool"`)}},
		},
		"SingletonTraversal": {
			reason: "a singleton's name is checked once, by its own rule",
			args:   args{gvk: storage.StorageAccountsBlobServiceDescriptor.GroupVersionKind(), fixture: `{"metadata":{"name":"blobs"},"spec":{"azureName":"../x","owner":{"name":"media"}}}`, create: true},
			want:   []string{`spec.azureName: Invalid value: "../x": a Microsoft.Storage/storageAccounts/blobServices is a singleton: its name in Azure is always "default"; remove azureName or set it to "default"`},
		},
		"ResourceIDOfWrongType": {
			reason: "a StorageAccount can only adopt a storage account",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{set("spec.resourceID", `"/subscriptions/s/resourceGroups/g"`)}},
			want:   []string{`spec.resourceID: Invalid value: "/subscriptions/s/resourceGroups/g": names a Microsoft.Resources/resourceGroups; a StorageAccount can only adopt a Microsoft.Storage/storageAccounts`},
		},
		"SingletonName": {
			reason: "a blob service is always named default",
			args:   args{gvk: storage.StorageAccountsBlobServiceDescriptor.GroupVersionKind(), fixture: `{"metadata":{"name":"blobs"},"spec":{"azureName":"blobs","owner":{"name":"media"}}}`, create: true},
			want:   []string{`spec.azureName: Invalid value: "blobs": a Microsoft.Storage/storageAccounts/blobServices is a singleton: its name in Azure is always "default"; remove azureName or set it to "default"`},
		},

		// VirtualMachineScaleSet: createOnly paths inside arrays of objects.
		"VMSSInArrayMatchedByName": {
			reason: "NICs are paired by name: a new NIC in front does not shift the comparison, the changed sku of nic-b is found at its new index",
			args: args{gvk: vmssGVK, fixture: vmssJSON, change: []edit{
				set(nicPath, `[{"name":"nic-new","properties":{"ipConfigurations":[{"name":"ip-n","properties":{"publicIPAddressConfiguration":{"name":"pip-n","sku":{"name":"Standard"}}}}]}},
				  {"name":"nic-b","properties":{"ipConfigurations":[{"name":"ip-b","properties":{"publicIPAddressConfiguration":{"name":"pip-b","sku":{"name":"Standard"}}}}]}},
				  {"name":"nic-a","properties":{"primary":true,"ipConfigurations":[{"name":"ip-a","properties":{"publicIPAddressConfiguration":{"name":"pip-a","sku":{"name":"Basic"},"properties":{"ipTags":[{"ipTagType":"RoutingPreference","tag":"Internet"}]}}}}]}}]`),
			}},
			want: []string{createOnlyErr(nicPath+"[1].properties.ipConfigurations[0].properties.publicIPAddressConfiguration.sku.name", `"Basic"`, `"Standard"`)},
		},
		"VMSSReorderedNICs": {
			reason: "reordering named NICs changes no createOnly value",
			args: args{gvk: vmssGVK, fixture: vmssJSON, change: []edit{func(t testing.TB, obj map[string]any) {
				nics, _ := index(obj["spec"].(map[string]any)["properties"].(map[string]any)["virtualMachineProfile"].(map[string]any)["networkProfile"], "networkInterfaceConfigurations")
				a := nics.([]any)
				a[0], a[1] = a[1], a[0]
			}}},
		},
		"VMSSNICRemoved": {
			reason: "a writable array may lose an item with createOnly values",
			args:   args{gvk: vmssGVK, fixture: vmssJSON, change: []edit{set(nicPath, `[{"name":"nic-a","properties":{"primary":true,"ipConfigurations":[{"name":"ip-a","properties":{"publicIPAddressConfiguration":{"name":"pip-a","sku":{"name":"Basic"},"properties":{"ipTags":[{"ipTagType":"RoutingPreference","tag":"Internet"}]}}}}]}}]`)}},
		},
		"VMSSUnnamedItemsByIndex": {
			reason: "ipTags items have no name: paired by index, reported at the member",
			args:   args{gvk: vmssGVK, fixture: vmssJSON, change: []edit{set(nicPath+"[0].properties.ipConfigurations[0].properties.publicIPAddressConfiguration.properties.ipTags[0].tag", `"Storage"`)}},
			want:   []string{createOnlyErr(nicPath+"[0].properties.ipConfigurations[0].properties.publicIPAddressConfiguration.properties.ipTags[0].tag", `"Internet"`, `"Storage"`)},
		},
		"VMSSCreateOnlyArrayGrew": {
			reason: "an item added to a createOnly array is a change of the array",
			args:   args{gvk: vmssGVK, fixture: vmssJSON, change: []edit{set(nicPath+"[0].properties.ipConfigurations[0].properties.publicIPAddressConfiguration.properties.ipTags", `[{"ipTagType":"RoutingPreference","tag":"Internet"},{"ipTagType":"FirstPartyUsage","tag":"x"}]`)}},
			want:   []string{createOnlyErr(nicPath+"[0].properties.ipConfigurations[0].properties.publicIPAddressConfiguration.properties.ipTags", `[{"ipTagType":"RoutingPreference","tag":"Internet"}]`, `[{"ipTagType":"RoutingPreference","tag":"Internet"},{"ipTagType":"FirstPartyUsage","tag":"x"}]`)},
		},
		"VMSSZones": {
			reason: "zones, an array of strings, is compared whole",
			args:   args{gvk: vmssGVK, fixture: vmssJSON, change: []edit{set("spec.zones", `["1","2"]`)}},
			want:   []string{createOnlyErr("spec.zones", `["1"]`, `["1","2"]`)},
		},
		"VMSSCreateOnlyBesideSecret": {
			reason: "adminUsername is createOnly next to the secret adminPassword; capacity is writable",
			args: args{gvk: vmssGVK, fixture: vmssJSON, change: []edit{
				set("spec.properties.virtualMachineProfile.osProfile.adminUsername", `"root"`), set("spec.sku.capacity", `5`)}},
			want: []string{createOnlyErr("spec.properties.virtualMachineProfile.osProfile.adminUsername", `"azureuser"`, `"root"`)},
		},
		"VMSSSecretAsValue": {
			reason: "a secret given as a plain string is refused without echoing it",
			args:   args{gvk: vmssGVK, fixture: vmssJSON, create: true, change: []edit{set("spec.properties.virtualMachineProfile.osProfile.adminPassword", `"hunter2"`)}},
			want:   []string{"spec.properties.virtualMachineProfile.osProfile.adminPassword" + secretErr},
		},
		"VMSSSecretRefWithValue": {
			reason: "a Secret reference carries name and key only",
			args:   args{gvk: vmssGVK, fixture: vmssJSON, create: true, change: []edit{set("spec.properties.virtualMachineProfile.osProfile.adminPassword", `{"name":"s","key":"k","value":"hunter2"}`)}},
			want:   []string{"spec.properties.virtualMachineProfile.osProfile.adminPassword" + secretErr},
		},
		"VMSSValidCreate": {
			reason: "the VMSS fixture is valid",
			args:   args{gvk: vmssGVK, fixture: vmssJSON, create: true},
		},
		"PolicyTypoOnCreate": {
			reason: "an unknown reconcile policy (a trailing space) is refused at create: it must never mean manage",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{policy("detach-on-delete ")}},
			want:   []string{policyErr("detach-on-delete ")},
		},
		"PolicyCaseOnCreate": {
			reason: "policies are exact: Skip is not skip",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{policy("Skip")}},
			want:   []string{policyErr("Skip")},
		},
		"PolicyValidCreate": {
			reason: "a known policy passes",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, create: true, change: []edit{policy("detach-on-delete")}},
		},
		"PolicyChangedToUnknown": {
			reason: "an update that only changes the annotation to an unknown policy is refused",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, base: []edit{policy("skip")}, change: []edit{policy("sikp")}},
			want:   []string{policyErr("sikp")},
		},
		"PolicyUnknownUnchanged": {
			reason: "an object stored with an unknown policy (before the webhook) may still change its spec; the reconciler refuses to act on it",
			args:   args{gvk: storageAccountGVK, fixture: storageAccountJSON, base: []edit{policy("sikp")}, change: []edit{set("spec.properties.accessTier", `"Cool"`)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			old := build(t, tc.args.fixture, tc.args.base...)
			obj := build(t, tc.args.fixture, append(append([]edit{}, tc.args.base...), tc.args.change...)...)
			op := admissionv1.Update
			if tc.args.create {
				op, old = admissionv1.Create, nil
			}
			resp := reg.ValidatingHandler().Handle(context.Background(), request(t, op, tc.args.gvk, obj, old))
			got := verdict(t, resp)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
			if resp.Result != nil && strings.Contains(resp.Result.Message, "hunter2") {
				t.Errorf("%s: the message echoes the secret value: %s", tc.reason, resp.Result.Message)
			}
		})
	}
}

// TestValidateResponse checks the shape of a refusal: the message is the
// field error (so the apiserver shows "...denied the request: spec.location:
// Forbidden: ..."), reason Invalid, code 422.
func TestValidateResponse(t *testing.T) {
	reg := New(allDescriptors())
	old := object(t, storageAccountJSON)
	obj := build(t, storageAccountJSON, set("spec.location", `"northeurope"`))
	resp := reg.ValidatingHandler().Handle(context.Background(), request(t, admissionv1.Update, storageAccountGVK, obj, old))
	type shape struct {
		Allowed       bool
		Code          int32
		Reason        string
		Message       string
		Kind, Group   string
		Name          string
		CauseFieldOne string
	}
	want := shape{
		Code: 422, Reason: "Invalid",
		Message: `spec.location: Forbidden: field is create-only (was "westeurope", now "northeurope"); delete and recreate the resource to change it`,
		Kind:    "StorageAccount", Group: "storage.azure.armature.dev", Name: "media", CauseFieldOne: "spec.location",
	}
	got := shape{Allowed: resp.Allowed}
	if r := resp.Result; r != nil {
		got.Code, got.Reason, got.Message = r.Code, string(r.Reason), r.Message
		if d := r.Details; d != nil {
			got.Kind, got.Group, got.Name = d.Kind, d.Group, d.Name
			if len(d.Causes) > 0 {
				got.CauseFieldOne = d.Causes[0].Field
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}

// TestSecretInsideCreateOnlyIsHidden uses a small Descriptor: the corpus
// has no secret below a createOnly path, but a change there must not echo
// the value either.
func TestSecretInsideCreateOnlyIsHidden(t *testing.T) {
	d := descriptor.Descriptor{Group: "test.armature.dev", Version: "v1", Kind: "Synthetic", ARMType: "Test.RP/synthetics",
		Properties: []descriptor.Property{
			{Path: descriptor.MustParsePath("profile"), Class: descriptor.CreateOnly},
			{Path: descriptor.MustParsePath("profile.password"), Class: descriptor.Secret},
			{Path: descriptor.MustParsePath("profile.user"), Class: descriptor.CreateOnly},
		},
		SecretPaths: []descriptor.Path{descriptor.MustParsePath("profile.password")},
	}
	reg := New(nil)
	reg.Add(&d)
	old := object(t, `{"metadata":{"name":"x"},"spec":{"profile":{"user":"a","password":{"name":"s","key":"k"}}}}`)
	obj := object(t, `{"metadata":{"name":"x"},"spec":{"profile":{"user":"b","password":{"name":"s2","key":"k"}}}}`)
	got := verdict(t, reg.ValidatingHandler().Handle(context.Background(), request(t, admissionv1.Update, d.GroupVersionKind(), obj, old)))
	want := []string{
		createOnlyErr("spec.profile.password.name", "<hidden>", "<hidden>"),
		createOnlyErr("spec.profile.user", `"a"`, `"b"`),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}

// policy returns an edit setting the reconcile-policy annotation.
func policy(v string) edit {
	return func(t testing.TB, obj map[string]any) {
		meta := obj["metadata"].(map[string]any)
		ann, _ := meta["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
			meta["annotations"] = ann
		}
		ann[core.AnnotationPolicy] = v
	}
}

// policyErr is the refusal of an unknown policy, written out.
func policyErr(v string) string {
	return `metadata.annotations[armature.dev/reconcile-policy]: Unsupported value: "` + v + `": supported values: "manage", "skip", "detach-on-delete", "plan"`
}

// TestDottedPropertyName: a property whose name has a dot (contoso's
// properties["odata.type"], as Microsoft.Insights has) is one path segment:
// its create-only class is enforced, and the field path shows the name whole.
func TestDottedPropertyName(t *testing.T) {
	reg := New([]*descriptor.Descriptor{&contoso.WidgetDescriptor})
	gvk := contoso.WidgetDescriptor.GroupVersionKind()
	old := object(t, `{"metadata":{"name":"w"},"spec":{"location":"westeurope","properties":{"odata.type":"#Microsoft.A","serial":"1"}}}`)
	cases := map[string]struct {
		obj  string
		want []string
	}{
		"Changed": {`{"metadata":{"name":"w"},"spec":{"location":"westeurope","properties":{"odata.type":"#Microsoft.B","serial":"1"}}}`,
			[]string{createOnlyErr("spec.properties[odata.type]", `"#Microsoft.A"`, `"#Microsoft.B"`)}},
		"Removed": {`{"metadata":{"name":"w"},"spec":{"location":"westeurope","properties":{"serial":"1"}}}`,
			[]string{createOnlyErr("spec.properties[odata.type]", `"#Microsoft.A"`, "unset")}},
		"SplitLookalike": {`{"metadata":{"name":"w"},"spec":{"location":"westeurope","properties":{"odata.type":"#Microsoft.A","odata":{"type":"x"},"serial":"1"}}}`, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resp := reg.ValidatingHandler().Handle(context.Background(), request(t, admissionv1.Update, gvk, object(t, tc.obj), old))
			if diff := cmp.Diff(tc.want, verdict(t, resp)); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}
