package main

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/fakearm"
)

const (
	networkAPI  = "network.azure.armature.dev/v20240101"
	identityAPI = "managedidentity.azure.armature.dev/v20230131"
	storageAPI  = "storage.azure.armature.dev/v20230501"
	authzAPI    = "authorization.azure.armature.dev/v20220401"

	// storageBlobDataReader is the built-in role Storage Blob Data Reader:
	// a constant of Azure, the same in every tenant and subscription, not
	// an id of anything the stack makes.
	storageBlobDataReader = "/providers/Microsoft.Authorization/roleDefinitions/2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"
)

// stackObjects is a small application stack in which no ARM id is typed:
// a virtual network with two subnets, a network security group the app
// subnet references, a network interface on that subnet, a user-assigned
// identity, a storage account that uses the identity and hands its blob
// endpoint (ConfigMap) and first key (Secret) to a Deployment, and a role
// assignment on the account whose principal is the identity's (valuesFrom;
// the CRD does not require principalId, admission checks it is supplied).
func stackObjects(ns string) []*unstructured.Unstructured {
	ref := func(kind, name string) map[string]any { return map[string]any{"kind": kind, "name": name} }
	return []*unstructured.Unstructured{
		obj(networkAPI, "NetworkInterface", ns, "app-nic", map[string]any{
			"owner": map[string]any{"name": "stack-rg"}, "location": "westeurope",
			"properties": map[string]any{"ipConfigurations": []any{map[string]any{
				"name": "primary",
				"properties": map[string]any{
					"privateIPAllocationMethod": "Dynamic",
					"subnet":                    map[string]any{"idRef": ref("VirtualNetworksSubnet", "app")},
				},
			}}},
		}),
		obj(storageAPI, "StorageAccount", ns, "stack-data", map[string]any{
			"azureName": "stackdata01", "owner": map[string]any{"name": "stack-rg"}, "location": "westeurope",
			"kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
			"identity": map[string]any{"type": "UserAssigned", "userAssignedIdentitiesRefs": []any{ref("UserAssignedIdentity", "app-identity")}},
			"operatorSpec": map[string]any{
				"configMaps": []any{map[string]any{"name": "stack-outputs", "key": "blobEndpoint", "value": "status.properties.primaryEndpoints.blob"}},
				"secrets":    []any{map[string]any{"name": "stack-keys", "key": "storageKey", "value": "listKeys.keys[0].value"}},
			},
		}),
		obj(authzAPI, "RoleAssignment", ns, "app-reads-data", map[string]any{
			"owner":      map[string]any{"group": "storage.azure.armature.dev", "kind": "StorageAccount", "name": "stack-data"},
			"azureName":  "7d3c1c4e-2b8f-4a51-9e0a-5f6d2c8b1a70",
			"properties": map[string]any{"roleDefinitionId": storageBlobDataReader, "principalType": "ServicePrincipal"},
			"valuesFrom": []any{map[string]any{"path": "properties.principalId",
				"from": map[string]any{"kind": "UserAssignedIdentity", "name": "app-identity", "field": "status.properties.principalId"}}},
		}),
		obj(networkAPI, "VirtualNetworksSubnet", ns, "app", map[string]any{
			"owner": map[string]any{"name": "stack-vnet"}, "azureName": "app",
			"properties": map[string]any{"addressPrefix": "10.1.1.0/24", "networkSecurityGroup": map[string]any{"idRef": ref("NetworkSecurityGroup", "app-nsg")}},
		}),
		obj(networkAPI, "VirtualNetworksSubnet", ns, "data", map[string]any{
			"owner": map[string]any{"name": "stack-vnet"}, "azureName": "data", "properties": map[string]any{"addressPrefix": "10.1.2.0/24"},
		}),
		obj(networkAPI, "NetworkSecurityGroup", ns, "app-nsg", map[string]any{"owner": map[string]any{"name": "stack-rg"}, "location": "westeurope"}),
		obj(identityAPI, "UserAssignedIdentity", ns, "app-identity", map[string]any{"owner": map[string]any{"name": "stack-rg"}, "location": "westeurope"}),
		obj(networkAPI, "VirtualNetwork", ns, "stack-vnet", map[string]any{
			"owner": map[string]any{"name": "stack-rg"}, "location": "westeurope",
			"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.1.0.0/16"}}},
		}),
		obj("resources.azure.armature.dev/v20240301", "ResourceGroup", ns, "stack-rg", map[string]any{"location": "westeurope"}),
	}
}

// stackWorkload is a Deployment that reads the stack's outputs.
func stackWorkload(ns string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "app", "namespace": ns},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": "app"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "app"}},
				"spec": map[string]any{"containers": []any{map[string]any{
					"name": "app", "image": "registry.example/app:1",
					"envFrom": []any{
						map[string]any{"configMapRef": map[string]any{"name": "stack-outputs"}},
						map[string]any{"secretRef": map[string]any{"name": "stack-keys"}},
					},
				}}},
			},
		},
	}}
}

// runStack applies the stack all at once (the interface first: it waits
// for its subnet), shows the resolved ids ARM received and the outputs,
// then deletes it all at once and prints the order of the DELETEs.
func runStack(ctx context.Context, k8s client.Client, fa *fakearm.Running, ns string) error {
	objs := stackObjects(ns)
	step("A stack of %d objects in any order, no ARM id typed: references (…Ref), outputs for a Deployment, delete order", len(objs))
	fa.ResetJournal()
	for _, o := range append(objs, stackWorkload(ns)) {
		if err := k8s.Create(ctx, o); err != nil {
			return fmt.Errorf("create %s: %w", o.GetName(), err)
		}
	}
	fmt.Println("  NetworkInterface/app-nic, applied first:")
	if err := waitFor(ctx, 20*time.Second, func() bool {
		_, reason := ready(get(ctx, k8s, objs[0]))
		return reason == "WaitingForReference"
	}); err == nil {
		_, msg := conditionMessage(get(ctx, k8s, objs[0]))
		fmt.Printf("    WaitingForReference: %s\n", msg)
	}
	start := time.Now()
	if _, err := watchTable(ctx, k8s, objs, 90*time.Second); err != nil {
		return err
	}
	fmt.Printf("  all %d Ready %v after the last apply\n", len(objs), time.Since(start).Round(100*time.Millisecond))
	for _, e := range fa.Journal() {
		if e.Method == http.MethodPut && e.Status < 300 && (strings.Contains(e.Path, "/networkInterfaces/") || strings.HasSuffix(e.Path, "/subnets/app") || strings.HasSuffix(e.Path, "/storageAccounts/stackdata01") || strings.Contains(e.Path, "/roleAssignments/")) {
			fmt.Printf("  ARM ← PUT %s\n      %s\n", short(e.Path), e.Body)
		}
	}
	var cm corev1.ConfigMap
	var sec corev1.Secret
	if err := waitFor(ctx, 20*time.Second, func() bool {
		return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "stack-outputs"}, &cm) == nil &&
			k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "stack-keys"}, &sec) == nil
	}); err != nil {
		return fmt.Errorf("outputs: %w", err)
	}
	fmt.Printf("  ConfigMap stack-outputs: %v (owned by %s)\n", cm.Data, cm.OwnerReferences[0].Name)
	fmt.Printf("  Secret stack-keys: keys %v, %d bytes (the value goes nowhere else)\n", slices.Sorted(maps.Keys(sec.Data)), len(sec.Data["storageKey"]))
	fmt.Println("  Deployment/app reads both (envFrom configMapRef stack-outputs, secretRef stack-keys)")
	return deleteStack(ctx, k8s, fa, objs)
}

// deleteStack deletes every object at once and prints the DELETEs in the
// order ARM received them.
func deleteStack(ctx context.Context, k8s client.Client, fa *fakearm.Running, objs []*unstructured.Unstructured) error {
	fmt.Println("  deleting all of it at once (kubectl delete -f stack/):")
	fa.ResetJournal()
	for _, o := range objs {
		if err := k8s.Delete(ctx, get(ctx, k8s, o)); err != nil {
			return err
		}
	}
	if err := waitFor(ctx, 90*time.Second, func() bool {
		for _, o := range objs {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(o.GroupVersionKind())
			if k8s.Get(ctx, client.ObjectKeyFromObject(o), u) == nil {
				return false
			}
		}
		return true
	}); err != nil {
		return fmt.Errorf("stack not deleted: %w", err)
	}
	for _, e := range fa.Journal() {
		if e.Method == http.MethodDelete {
			fmt.Printf("  ARM ← DELETE %s → %d\n", short(e.Path), e.Status)
		}
	}
	left := 0
	for _, id := range fa.ResourceIDs() {
		if strings.Contains(strings.ToLower(id), "/resourcegroups/stack-rg") {
			left++
		}
	}
	fmt.Printf("  resources of the stack left in ARM: %d\n", left)
	return nil
}

func conditionMessage(u *unstructured.Unstructured) (string, string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "Ready" {
			r, _ := m["reason"].(string)
			msg, _ := m["message"].(string)
			return r, msg
		}
	}
	return "", ""
}
