package webhook

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/armature-dev/armature/generated/apis"
	resources "github.com/armature-dev/armature/generated/apis/resources/v20240301"
	fabrikam "github.com/armature-dev/armature/generator/testdata/embedded/expected/apis/fabrikam/v20240501"
)

// TestValidateOwnerKind: an extension kind's owner is a custom resource of
// any kind (group, kind and name) or an ARM id of anything; another kind's
// owner group and kind may only repeat its owner kind. Each case fails when
// the check it names is removed.
func TestValidateOwnerKind(t *testing.T) {
	reg := New(append(apis.Descriptors(), fabrikam.Descriptors()...))
	grant := fabrikam.GrantDescriptor.GroupVersionKind()
	const grantJSON = `{"apiVersion":"fabrikam.azure.armature.dev/v20240501","kind":"Grant","metadata":{"name":"g"},"spec":{"properties":{"principalId":"p","role":"Reader"}}}`
	const extDetail = "the owner of a Grant (an extension resource: its owner can be any resource) is named by group, kind and name of a custom resource in this namespace, or by armId"
	const accountOwnerDetail = `the owner of a StorageAccount is a ResourceGroup; leave owner.group and owner.kind empty or set them to "resources.azure.armature.dev" and "ResourceGroup"`
	cases := map[string]struct {
		reason  string
		gvk     schema.GroupVersionKind
		fixture string
		owner   string
		want    []string
	}{
		"ExtensionByKind": {
			reason:  "a storage account owns a grant by group, kind and name",
			fixture: grantJSON, owner: `{"group":"storage.azure.armature.dev","kind":"StorageAccount","name":"media"}`,
		},
		"ExtensionByARMID": {
			reason:  "an ARM id of any type owns a grant (here a resource group)",
			fixture: grantJSON, owner: `{"armId":"/subscriptions/s/resourceGroups/g"}`,
		},
		"ExtensionNameAlone": {
			reason:  "a name alone names no kind",
			fixture: grantJSON, owner: `{"name":"media"}`,
			want: []string{"spec.owner.group: Required value: " + extDetail},
		},
		"ExtensionNoKind": {
			reason:  "group without kind names no kind",
			fixture: grantJSON, owner: `{"group":"storage.azure.armature.dev","name":"media"}`,
			want: []string{"spec.owner.kind: Required value: " + extDetail},
		},
		"ExtensionNoName": {
			reason:  "group and kind without a name name no object",
			fixture: grantJSON, owner: `{"group":"storage.azure.armature.dev","kind":"StorageAccount"}`,
			want: []string{"spec.owner.name: Required value: " + extDetail},
		},
		"ExtensionKindAndARMID": {
			reason:  "a custom resource or an ARM id, not both",
			fixture: grantJSON, owner: `{"group":"storage.azure.armature.dev","kind":"StorageAccount","armId":"/subscriptions/s/resourceGroups/g"}`,
			want: []string{`spec.owner: Invalid value: {"armId":"/subscriptions/s/resourceGroups/g","group":"storage.azure.armature.dev","kind":"StorageAccount"}: set one of owner.name and owner.armId, not both; ` + extDetail},
		},
		"OwnerKindRepeated": {
			reason:  "a storage account may spell out its owner's kind",
			fixture: storageAccountJSON, owner: `{"group":"resources.azure.armature.dev","kind":"ResourceGroup","name":"team-a-rg"}`,
		},
		"OwnerKindOther": {
			reason:  "a storage account's owner is a resource group, not a storage account",
			fixture: storageAccountJSON, owner: `{"group":"storage.azure.armature.dev","kind":"StorageAccount","name":"other"}`,
			want: []string{
				`spec.owner.group: Invalid value: "storage.azure.armature.dev": ` + accountOwnerDetail,
				`spec.owner.kind: Invalid value: "StorageAccount": ` + accountOwnerDetail,
			},
		},
		"OwnerKindOfUngenerated": {
			reason:  "a resource group's owner (a subscription) is no custom resource: no kind to name",
			gvk:     resources.ResourceGroupDescriptor.GroupVersionKind(),
			fixture: `{"metadata":{"name":"rg"},"spec":{"location":"westeurope"}}`, owner: `{"group":"x.azure.armature.dev","kind":"Subscription","armId":"/subscriptions/s"}`,
			want: []string{`spec.owner.kind: Invalid value: "Subscription": the owner of a ResourceGroup is a Microsoft.Resources/subscriptions, which this operator does not manage as a custom resource; remove owner.group and owner.kind and set owner.armId`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			gvk := tc.gvk
			switch {
			case !gvk.Empty():
			case tc.fixture == grantJSON:
				gvk = grant
			default:
				gvk = storageAccountGVK
			}
			obj := build(t, tc.fixture, set("spec.owner", tc.owner))
			got := verdict(t, reg.ValidatingHandler().Handle(context.Background(), request(t, admissionv1.Create, gvk, obj, nil)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
