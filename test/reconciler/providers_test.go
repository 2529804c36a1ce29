package reconciler_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/runtime/reconciler"
)

// TestProviders reconciles one small tree of each provider issue 15 added
// to generated/ (the services platform teams ask for first): each object
// becomes Ready against the emulator after exactly one PUT at the ARM id
// the operator derives from its owners.
func TestProviders(t *testing.T) {
	type object struct {
		obj *unstructured.Unstructured
		id  string // ARM id below the resource group "platform"
	}
	owner := func(name string) map[string]any { return map[string]any{"name": name} }
	cases := map[string]func(ns string) []object{
		"ContainerService": func(ns string) []object {
			const api = "containerservice.azure.armature.dev/v20240201"
			return []object{
				{cr("ManagedCluster", api, ns, "aks1", map[string]any{"owner": owner("platform"), "location": "westeurope", "properties": map[string]any{
					"dnsPrefix": "aks1", "agentPoolProfiles": []any{map[string]any{"name": "system", "count": int64(1), "vmSize": "Standard_D2s_v3", "mode": "System"}},
				}}), "Microsoft.ContainerService/managedClusters/aks1"},
				{cr("ManagedClustersAgentPool", api, ns, "aks1-user", map[string]any{"owner": owner("aks1"), "azureName": "user", "properties": map[string]any{
					"count": int64(2), "vmSize": "Standard_D4s_v3", "mode": "User",
				}}), "Microsoft.ContainerService/managedClusters/aks1/agentPools/user"},
			}
		},
		"Sql": func(ns string) []object {
			const api = "sql.azure.armature.dev/v20211101"
			return []object{
				{cr("Server", api, ns, "sql1", map[string]any{"owner": owner("platform"), "location": "westeurope", "properties": map[string]any{
					"administratorLogin":         "dba",
					"administratorLoginPassword": map[string]any{"name": "sql1-admin", "key": "password"},
				}}), "Microsoft.Sql/servers/sql1"},
				{cr("ServersDatabase", api, ns, "sql1-orders", map[string]any{"owner": owner("sql1"), "azureName": "orders", "location": "westeurope", "sku": map[string]any{"name": "S0"}}),
					"Microsoft.Sql/servers/sql1/databases/orders"},
				{cr("ServersFirewallRule", api, ns, "sql1-office", map[string]any{"owner": owner("sql1"), "azureName": "office", "properties": map[string]any{
					"startIpAddress": "203.0.113.0", "endIpAddress": "203.0.113.255",
				}}), "Microsoft.Sql/servers/sql1/firewallRules/office"},
			}
		},
		"DocumentDB": func(ns string) []object {
			const api = "documentdb.azure.armature.dev/v20240515"
			return []object{
				{cr("DatabaseAccount", api, ns, "cosmos1", map[string]any{"owner": owner("platform"), "location": "westeurope", "properties": map[string]any{
					"databaseAccountOfferType": "Standard", "locations": []any{map[string]any{"locationName": "westeurope", "failoverPriority": int64(0)}},
				}}), "Microsoft.DocumentDB/databaseAccounts/cosmos1"},
				{cr("DatabaseAccountsSqlDatabase", api, ns, "cosmos1-app", map[string]any{"owner": owner("cosmos1"), "azureName": "app", "properties": map[string]any{
					"resource": map[string]any{"id": "app"},
				}}), "Microsoft.DocumentDB/databaseAccounts/cosmos1/sqlDatabases/app"},
				{cr("DatabaseAccountsSqlDatabasesContainer", api, ns, "cosmos1-app-items", map[string]any{"owner": owner("cosmos1-app"), "azureName": "items", "properties": map[string]any{
					"resource": map[string]any{"id": "items", "partitionKey": map[string]any{"paths": []any{"/tenant"}, "kind": "Hash"}},
				}}), "Microsoft.DocumentDB/databaseAccounts/cosmos1/sqlDatabases/app/containers/items"},
			}
		},
		"ServiceBus": func(ns string) []object {
			const api = "servicebus.azure.armature.dev/v20211101"
			return []object{
				{cr("Namespace", api, ns, "bus1", map[string]any{"owner": owner("platform"), "location": "westeurope", "sku": map[string]any{"name": "Standard"}}),
					"Microsoft.ServiceBus/namespaces/bus1"},
				{cr("NamespacesQueue", api, ns, "bus1-jobs", map[string]any{"owner": owner("bus1"), "azureName": "jobs", "properties": map[string]any{"maxDeliveryCount": int64(5)}}),
					"Microsoft.ServiceBus/namespaces/bus1/queues/jobs"},
				{cr("NamespacesTopic", api, ns, "bus1-events", map[string]any{"owner": owner("bus1"), "azureName": "events"}),
					"Microsoft.ServiceBus/namespaces/bus1/topics/events"},
				{cr("NamespacesTopicsSubscription", api, ns, "bus1-events-audit", map[string]any{"owner": owner("bus1-events"), "azureName": "audit", "properties": map[string]any{"maxDeliveryCount": int64(3)}}),
					"Microsoft.ServiceBus/namespaces/bus1/topics/events/subscriptions/audit"},
			}
		},
		"Web": func(ns string) []object {
			const api = "web.azure.armature.dev/v20231201"
			return []object{
				{cr("Serverfarm", api, ns, "plan1", map[string]any{"owner": owner("platform"), "location": "westeurope", "sku": map[string]any{"name": "P1v3", "tier": "PremiumV3"}}),
					"Microsoft.Web/serverfarms/plan1"},
				// The plan by reference: the site waits for it (a site PUT
				// before its plan is ARM's 404, Test_Web_Site_v20220301_CRUD,
				// and a second PUT).
				{cr("Site", api, ns, "app1", map[string]any{"owner": owner("platform"), "location": "westeurope", "properties": map[string]any{
					"serverFarmIdRef": map[string]any{"kind": "Serverfarm", "name": "plan1"},
				}}), "Microsoft.Web/sites/app1"},
			}
		},
		"OperationalInsights": func(ns string) []object {
			const api = "operationalinsights.azure.armature.dev/v20230901"
			return []object{
				{cr("Workspace", api, ns, "logs1", map[string]any{"owner": owner("platform"), "location": "westeurope", "properties": map[string]any{
					"retentionInDays": int64(30), "sku": map[string]any{"name": "PerGB2018"},
				}}), "Microsoft.OperationalInsights/workspaces/logs1"},
			}
		},
		"Network": func(ns string) []object {
			const api = "network.azure.armature.dev/v20240101"
			return []object{
				{cr("VirtualNetwork", api, ns, "vnet1", map[string]any{"owner": owner("platform"), "location": "westeurope", "properties": map[string]any{
					"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
				}}), "Microsoft.Network/virtualNetworks/vnet1"},
				{cr("VirtualNetworksSubnet", api, ns, "vnet1-apps", map[string]any{"owner": owner("vnet1"), "azureName": "apps", "properties": map[string]any{"addressPrefix": "10.0.1.0/24"}}),
					"Microsoft.Network/virtualNetworks/vnet1/subnets/apps"},
				{cr("NetworkSecurityGroup", api, ns, "nsg1", map[string]any{"owner": owner("platform"), "location": "westeurope"}),
					"Microsoft.Network/networkSecurityGroups/nsg1"},
				{cr("NetworkSecurityGroupsSecurityRule", api, ns, "nsg1-https", map[string]any{"owner": owner("nsg1"), "azureName": "https", "properties": map[string]any{
					"priority": int64(100), "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
					"sourceAddressPrefix": "*", "sourcePortRange": "*", "destinationAddressPrefix": "*", "destinationPortRange": "443",
				}}), "Microsoft.Network/networkSecurityGroups/nsg1/securityRules/https"},
				{cr("PublicIPAddress", api, ns, "pip1", map[string]any{"owner": owner("platform"), "location": "westeurope", "sku": map[string]any{"name": "Standard"}, "properties": map[string]any{
					"publicIPAllocationMethod": "Static",
				}}), "Microsoft.Network/publicIPAddresses/pip1"},
			}
		},
		"PrivateDNS": func(ns string) []object {
			const api = "network.azure.armature.dev/v20200601"
			return []object{
				{cr("PrivateDnsZone", api, ns, "zone1", map[string]any{"owner": owner("platform"), "azureName": "internal.contoso.com", "location": "global"}),
					"Microsoft.Network/privateDnsZones/internal.contoso.com"},
				{cr("PrivateDnsZonesA", api, ns, "zone1-www", map[string]any{"owner": owner("zone1"), "azureName": "www", "properties": map[string]any{
					"ttl": int64(300), "aRecords": []any{map[string]any{"ipv4Address": "10.0.1.4"}},
				}}), "Microsoft.Network/privateDnsZones/internal.contoso.com/A/www"},
			}
		},
		"Authorization": func(ns string) []object {
			const api = "authorization.azure.armature.dev/v20220401"
			const name = "5b2e3c1d-7f7a-4d9e-9a59-3a1c2a0c1f00"
			return []object{
				{cr("RoleAssignment", api, ns, "readers", map[string]any{"owner": map[string]any{"group": "resources.azure.armature.dev", "kind": "ResourceGroup", "name": "platform"}, "azureName": name, "properties": map[string]any{
					"principalId":      "ce2ce14e-85d7-4629-bdbc-454d0519d987",
					"principalType":    "ServicePrincipal",
					"roleDefinitionId": "/subscriptions/" + subscription + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
				}}), "providers/Microsoft.Authorization/roleAssignments/" + name},
			}
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fa := startARM(t, 1)
			ns := namespace(t)
			startOperator(t, fa, ns, reconciler.Config{})
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sql1-admin"}, StringData: map[string]string{"password": "n0t-a-real-Passw0rd"}}
			if err := k8s.Create(context.Background(), secret); err != nil {
				t.Fatal(err)
			}
			objects := build(ns)
			all := []*unstructured.Unstructured{resourceGroup(ns, "platform")}
			for _, o := range objects {
				all = append(all, o.obj)
			}
			create(t, all...)
			waitReady(t, all...)
			for _, o := range objects {
				id := armID("platform", o.id)
				if strings.HasPrefix(o.id, "providers/") { // an extension resource of the group
					id = armID("platform") + "/" + o.id
				}
				if n := calls(fa, http.MethodPut, id); n != 1 {
					t.Errorf("%s %s: %d PUT at %s, want 1", o.obj.GetKind(), o.obj.GetName(), n, id)
				}
				if got, _, _ := unstructured.NestedString(get(t, o.obj).Object, "status", "id"); !strings.EqualFold(got, id) {
					t.Errorf("%s %s: status.id %q, want %q", o.obj.GetKind(), o.obj.GetName(), got, id)
				}
			}
		})
	}
}
