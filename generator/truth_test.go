package generator_test

import (
	"strings"
	"testing"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// judged are properties of shipped kinds whose behaviour in Azure is known
// independently of the swagger: Terraform azurerm's unconditional ForceNew
// (Azure refuses an update: createOnly) or an in-place update (Terraform
// sends it in an update: not createOnly), judged one by one in issue 26.
// The generator must agree with every one, whichever source decides.
var judged = []struct {
	armType, path string
	createOnly    bool
	why           string
}{
	// No ARM resource changes its location.
	{"Microsoft.Network/virtualNetworks", "location", true, "azurerm_virtual_network.location ForceNew"},
	{"Microsoft.Network/networkSecurityGroups", "location", true, "azurerm_network_security_group.location ForceNew"},
	{"Microsoft.Network/publicIPAddresses", "location", true, "azurerm_public_ip.location ForceNew"},
	{"Microsoft.Network/networkInterfaces", "location", true, "azurerm_network_interface.location ForceNew"},
	{"Microsoft.DocumentDB/databaseAccounts", "location", true, "azurerm_cosmosdb_account.location ForceNew"},
	// AKS.
	{"Microsoft.ContainerService/managedClusters", "properties.dnsPrefix", true, "dns_prefix ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.fqdnSubdomain", true, "dns_prefix_private_cluster ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.nodeResourceGroup", true, "node_resource_group ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.enableRBAC", true, "role_based_access_control_enabled ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.networkProfile.networkMode", true, "network_profile.network_mode ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.networkProfile.dnsServiceIP", true, "network_profile.dns_service_ip ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.networkProfile.serviceCidr", true, "network_profile.service_cidr ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.networkProfile.serviceCidrs", true, "network_profile.service_cidrs ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.networkProfile.ipFamilies", true, "network_profile.ip_versions ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.apiServerAccessProfile.enablePrivateCluster", true, "private_cluster_enabled ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.apiServerAccessProfile.privateDNSZone", true, "private_dns_zone_id ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.linuxProfile.adminUsername", true, "linux_profile.admin_username ForceNew"},
	{"Microsoft.ContainerService/managedClusters", "properties.diskEncryptionSetID", true, "disk_encryption_set_id ForceNew"},
	{"Microsoft.ContainerService/managedClusters/agentPools", "properties.osType", true, "os_type ForceNew"},
	{"Microsoft.ContainerService/managedClusters/agentPools", "properties.scaleSetPriority", true, "priority ForceNew"},
	{"Microsoft.ContainerService/managedClusters/agentPools", "properties.scaleSetEvictionPolicy", true, "eviction_policy ForceNew"},
	{"Microsoft.ContainerService/managedClusters/agentPools", "properties.proximityPlacementGroupID", true, "proximity_placement_group_id ForceNew"},
	{"Microsoft.ContainerService/managedClusters/agentPools", "properties.nodePublicIPPrefixID", true, "node_public_ip_prefix_id ForceNew"},
	// Service Bus queues.
	{"Microsoft.ServiceBus/namespaces/queues", "properties.requiresSession", true, "requires_session ForceNew"},
	{"Microsoft.ServiceBus/namespaces/queues", "properties.requiresDuplicateDetection", true, "requires_duplicate_detection ForceNew"},
	{"Microsoft.ServiceBus/namespaces/queues", "properties.enablePartitioning", true, "partitioning_enabled ForceNew"},
	// Role assignments.
	{"Microsoft.Authorization/roleAssignments", "properties.roleDefinitionId", true, "role_definition_id ForceNew"},
	{"Microsoft.Authorization/roleAssignments", "properties.principalId", true, "principal_id ForceNew"},
	// Public IPs.
	{"Microsoft.Network/publicIPAddresses", "properties.publicIPAddressVersion", true, "ip_version ForceNew"},
	{"Microsoft.Network/publicIPAddresses", "sku.tier", true, "sku_tier ForceNew"},
	{"Microsoft.Network/publicIPAddresses", "properties.ipTags", true, "ip_tags ForceNew"},
	{"Microsoft.Network/publicIPAddresses", "zones", true, "zones ForceNew"},
	// Storage.
	{"Microsoft.Storage/storageAccounts", "properties.dnsEndpointType", true, "dns_endpoint_type ForceNew"},
	{"Microsoft.Storage/storageAccounts", "properties.encryption.requireInfrastructureEncryption", true, "infrastructure_encryption_enabled ForceNew"},
	// SQL databases.
	{"Microsoft.Sql/servers/databases", "properties.isLedgerOn", true, "ledger_enabled ForceNew"},
	{"Microsoft.Sql/servers/databases", "properties.secondaryType", true, "secondary_type ForceNew"},
	// Cosmos DB.
	{"Microsoft.DocumentDB/databaseAccounts", "properties.enableFreeTier", true, "free_tier_enabled ForceNew"},

	// Updated in place, though the swagger's PATCH body lacks them.
	{"Microsoft.Web/serverfarms", "sku", false, "azurerm_service_plan.sku_name updated in place"},
	{"Microsoft.Web/serverfarms", "tags", false, "azurerm_service_plan.tags updated in place"},
	{"Microsoft.Web/sites", "tags", false, "azurerm_linux_web_app.tags updated in place"},
	{"Microsoft.Web/sites", "properties.publicNetworkAccess", false, "public_network_access_enabled updated in place"},
	{"Microsoft.Web/sites", "properties.vnetRouteAllEnabled", false, "site_config.vnet_route_all_enabled updated in place"},
	{"Microsoft.Web/sites", "properties.vnetBackupRestoreEnabled", false, "virtual_network_backup_restore_enabled updated in place"},
	{"Microsoft.Web/sites", "properties.vnetImagePullEnabled", false, "vnet_image_pull_enabled updated in place"},
	{"Microsoft.Sql/servers/databases", "identity", false, "azurerm_mssql_database.identity updated in place"},
}

// TestJudgedClasses checks the shipped kinds against the judged list.
func TestJudgedClasses(t *testing.T) {
	a := analyzeCorpus(t)
	agree := 0
	for _, j := range judged {
		tb := a.Tables[strings.ToLower(j.armType)]
		if tb == nil {
			t.Errorf("%s is not generated", j.armType)
			continue
		}
		e, ok := tb.Entry(descriptor.MustParsePath(j.path))
		if !ok {
			t.Errorf("%s %s: not in the table", j.armType, j.path)
			continue
		}
		if got := e.Class == classify.CreateOnly; got != j.createOnly {
			t.Errorf("%s %s: %s (%s), want createOnly=%v: %s", j.armType, j.path, e.Class, e.Rule, j.createOnly, j.why)
			continue
		}
		agree++
	}
	t.Logf("agreement with the judged list: %d/%d", agree, len(judged))
}
