package fakearm_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/recording"
)

// TestProfileAnswers checks that the emulator answers as the generated
// profiles say real ARM does (test/recordings/SOURCES.md lists the
// recorded behaviours).
func TestProfileAnswers(t *testing.T) {
	const (
		identity = rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1"
		queue    = account + "/queueServices/default/queues/q1"
		miAPI    = "2023-01-31"
	)
	kvBody := map[string]any{"location": "westeurope", "properties": map[string]any{"tenantId": "00000000-0000-0000-0000-000000000002", "sku": map[string]any{"family": "A", "name": "standard"}}}
	cases := map[string]struct {
		reason             string
		method, path, api  string
		body               any
		status             int
		code               string
		header, headerWant string // a header and a substring of its value ("" → absent)
	}{
		"VaultPUTIsSynchronous": {reason: "Test_KeyVault_Vault_CRUD: 200 with the vault, no LRO header", method: http.MethodPut, path: vault, api: kvAPI, body: kvBody, status: 200, header: "Azure-AsyncOperation"},
		"IdentityCreateNamesItself": {reason: "Test_ManagedIdentity_UserAssignedIdentity_CRUD: 201 with a relative Location naming the identity", method: http.MethodPut, path: identity, api: miAPI,
			body: map[string]any{"location": "westeurope"}, status: 201, header: "Location", headerWant: identity},
		"DeleteOfMissingAccountIs204": {reason: "Test_AzureName_IsImmutable_IfAzureHasBeenCommunicatedWith: 204 No Content", method: http.MethodDelete, path: rg + "/providers/Microsoft.Storage/storageAccounts/never01", api: stAPI, status: 204},
		"DeleteInMissingGroup": {reason: "Test_Compute_DiskEncryptionSet_CRUD: the gateway's 404 ResourceGroupNotFound for a DELETE", method: http.MethodDelete,
			path: sub + "/resourceGroups/gone/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1", api: miAPI, status: 404, code: "ResourceGroupNotFound"},
		"ChildInMissingGroup": {reason: "Test_DocumentDB_SQLDatabase_v20231115_CRUD #125: the gateway's ResourceGroupNotFound for everything below a missing group", method: http.MethodDelete,
			path: sub + "/resourceGroups/gone/providers/Microsoft.DocumentDB/databaseAccounts/acct1/sqlDatabases/db1", api: "2024-05-15", status: 404, code: "ResourceGroupNotFound"},
		"SQLChildInMissingGroup": {reason: "Test_SQL_Server_CRUD #145: what the type's own recordings show below a missing group (2021-22: ParentResourceNotFound)", method: http.MethodDelete,
			path: sub + "/resourceGroups/gone/providers/Microsoft.Sql/servers/sql1/securityAlertPolicies/Default", api: "2021-11-01", status: 404, code: "ParentResourceNotFound"},
		"InvalidAccountName": {reason: "Test_AzureName_IsImmutable_IfAzureHasBeenCommunicatedWith: 400 AccountNameInvalid", method: http.MethodPut, path: rg + "/providers/Microsoft.Storage/storageAccounts/Bad_Name", api: stAPI,
			body: accountBody, status: 400, code: "AccountNameInvalid"},
		"GroupInUnknownLocation": {reason: "Test_NewResourceGroup_Error: 400 LocationNotAvailableForResourceGroup", method: http.MethodPut, path: sub + "/resourceGroups/elsewhere", api: rgAPI,
			body: map[string]any{"location": "BadLocation"}, status: 400, code: "LocationNotAvailableForResourceGroup"},
		"GroupInDisplayNamedLocation": {reason: "a region's display name is the region", method: http.MethodPut, path: sub + "/resourceGroups/display", api: rgAPI,
			body: map[string]any{"location": "West Europe"}, status: 201},
		"MissingQueue":   {reason: "Test_Storage_StorageAccount_CRUD: the storage provider's 404 QueueNotFound, not the gateway's", method: http.MethodGet, path: queue, api: stAPI, status: 404, code: "QueueNotFound", header: "x-ms-failure-cause"},
		"MissingAccount": {reason: "the gateway's ResourceNotFound", method: http.MethodGet, path: account, api: stAPI, status: 404, code: "ResourceNotFound", header: "x-ms-failure-cause", headerWant: "gateway"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := start(t, fakearm.StartOptions{})
			e.resourceGroup()
			if strings.Contains(tc.path, "/queueServices/") {
				e.wait(e.do(http.MethodPut, account, stAPI, accountBody))
			}
			resp := e.do(tc.method, tc.path, tc.api, tc.body)
			code := ""
			if resp.StatusCode >= 400 {
				code, _ = armCode(t, resp)
			}
			if resp.StatusCode != tc.status || code != tc.code {
				t.Errorf("%s: %d %s, want %d %s", tc.reason, resp.StatusCode, code, tc.status, tc.code)
			}
			if tc.header != "" {
				got := resp.Header.Get(tc.header)
				if tc.headerWant == "" && got != "" || tc.headerWant != "" && !strings.Contains(got, tc.headerWant) {
					t.Errorf("%s: %s %q, want %q", tc.reason, tc.header, got, tc.headerWant)
				}
			}
		})
	}
}

// TestOperationsRunOnTheClock: an operation ends after LRODuration even if
// nobody polls it; a resource group DELETE then removes its children by
// itself, as ARM does.
func TestOperationsRunOnTheClock(t *testing.T) {
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1000, LRODuration: 200 * time.Millisecond}})
	e.resourceGroup()
	resp := e.do(http.MethodPut, account, stAPI, accountBody)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("account PUT: %d", resp.StatusCode)
	}
	time.Sleep(400 * time.Millisecond)
	got := decode(t, e.do(http.MethodGet, account, stAPI, nil))
	if s := got["properties"].(map[string]any)["provisioningState"]; s != "Succeeded" {
		t.Errorf("the create ended by itself: provisioningState %v", s)
	}
	if resp := e.do(http.MethodDelete, rg, rgAPI, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("group DELETE: %d", resp.StatusCode)
	}
	before := e.arm.Count("GET")
	time.Sleep(400 * time.Millisecond)
	if n := e.arm.Count("GET"); n != before {
		t.Fatalf("nobody polled, yet %d GETs", n-before)
	}
	for id, api := range map[string]string{account: stAPI, rg: rgAPI} {
		if resp := e.do(http.MethodGet, id, api, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s after the group's delete ran out its time: %d, want 404", id, resp.StatusCode)
		}
	}
}

// TestOperationURLsNameTheRegion: operation URLs carry the resource's
// region (recorded: …/locations/westus2/…, Redis …/locations/West%20US%202/…).
func TestOperationURLsNameTheRegion(t *testing.T) {
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{LROPolls: 5}})
	e.resourceGroup()
	resp := e.do(http.MethodPut, account, stAPI, accountBody)
	if loc := resp.Header.Get("Location"); !strings.Contains(loc, "/locations/westeurope/") {
		t.Errorf("account operation: Location %q, want the account's region westeurope", loc)
	}
	resp = e.do(http.MethodPut, redis, redisAPI, map[string]any{"location": "West US 2", "properties": map[string]any{"sku": map[string]any{"name": "Basic", "family": "C", "capacity": 0}}})
	if aao := resp.Header.Get("Azure-AsyncOperation"); !strings.Contains(aao, "/locations/West%20US%202/operations/") {
		t.Errorf("cache operation: Azure-AsyncOperation %q, want the cache's region", aao)
	}
	e.wait(resp)
}

// TestNoProfiles: with an empty set, every type follows its swagger: a
// key vault PUT is long-running again.
func TestNoProfiles(t *testing.T) {
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{Profiles: recording.NewProfileSet(nil)}})
	e.resourceGroup()
	resp := e.do(http.MethodPut, vault, kvAPI, map[string]any{"location": "westeurope", "properties": map[string]any{"tenantId": "00000000-0000-0000-0000-000000000002", "sku": map[string]any{"family": "A", "name": "standard"}}})
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Azure-AsyncOperation") == "" {
		t.Errorf("PUT: %d, Azure-AsyncOperation %q", resp.StatusCode, resp.Header.Get("Azure-AsyncOperation"))
	}
	e.wait(resp)
}

// TestRecordedBehavioursBeyondTheSwagger checks that the emulator answers
// as the recordings of issue 16 showed real ARM does where the swagger
// says nothing (docs/emulator.md, "What the profiles learn").
func TestRecordedBehavioursBeyondTheSwagger(t *testing.T) {
	const (
		dnsAPI  = "2020-06-01"
		zone    = rg + "/providers/Microsoft.Network/privateDnsZones/example.com"
		link    = zone + "/virtualNetworkLinks/l1"
		sqlAPI  = "2021-11-01"
		server  = rg + "/providers/Microsoft.Sql/servers/sql1"
		alerts  = server + "/securityAlertPolicies/Default"
		roleAPI = "2022-04-01"
		role    = rg + "/providers/Microsoft.Authorization/roleDefinitions/00000000-0000-0000-0000-00000000000a"
	)
	e := start(t, fakearm.StartOptions{})
	e.resourceGroup()

	// Test_Networking_PrivateDnsZone_CRUD: a zone with a virtual network
	// link refuses its DELETE with 409 CannotDeleteResource.
	e.wait(e.do(http.MethodPut, zone, dnsAPI, map[string]any{"location": "global"}))
	e.wait(e.do(http.MethodPut, link, dnsAPI, map[string]any{"location": "global", "properties": map[string]any{
		"registrationEnabled": false, "virtualNetwork": map[string]any{"id": rg + "/providers/Microsoft.Network/virtualNetworks/vn1"}}}))
	resp := e.do(http.MethodDelete, zone, dnsAPI, nil)
	if code, _ := armCode(t, resp); resp.StatusCode != http.StatusConflict || code != "CannotDeleteResource" {
		t.Errorf("DELETE of a zone with a link: %d %s, want 409 CannotDeleteResource", resp.StatusCode, code)
	}
	e.wait(e.do(http.MethodDelete, link, dnsAPI, nil))
	if resp := e.do(http.MethodDelete, zone, dnsAPI, nil); resp.StatusCode >= 300 {
		t.Errorf("DELETE of a zone without links: %d", resp.StatusCode)
	}

	// Test_SQL_Server_CRUD: a security alert policy's GET carries the
	// secret storageAccountAccessKey, blanked ("").
	e.wait(e.do(http.MethodPut, server, sqlAPI, map[string]any{"location": "eastus", "properties": map[string]any{"administratorLogin": "a", "administratorLoginPassword": "p"}}))
	e.wait(e.do(http.MethodPut, alerts, sqlAPI, map[string]any{"properties": map[string]any{"state": "Enabled", "storageAccountAccessKey": "secret"}}))
	got := decode(t, e.do(http.MethodGet, alerts, sqlAPI, nil))
	if props, _ := got["properties"].(map[string]any); props["storageAccountAccessKey"] != "" {
		t.Errorf("storageAccountAccessKey = %#v, want the recorded blank \"\"", props["storageAccountAccessKey"])
	}

	// Test_Authorization_RoleDefinition*: a DELETE answers 200 with what
	// it deleted.
	e.wait(e.do(http.MethodPut, role, roleAPI, map[string]any{"properties": map[string]any{"roleName": "r", "assignableScopes": []any{rg}, "permissions": []any{}}}))
	resp = e.do(http.MethodDelete, role, roleAPI, nil)
	if body := decode(t, resp); resp.StatusCode != http.StatusOK || body["id"] == nil {
		t.Errorf("DELETE of a role definition: %d %v, want 200 with the definition", resp.StatusCode, body)
	}
}

// TestCreatedWithParent: a Service Bus namespace comes with its
// RootManageSharedAccessKey rule, whose keys a client reads without
// creating it (Test_ServiceBus_Namespace_Standard_v1api20211101_CRUD.yaml
// #31); a rule that was not made with it stays missing.
func TestCreatedWithParent(t *testing.T) {
	const sbAPI = "2021-11-01"
	ns := rg + "/providers/Microsoft.ServiceBus/namespaces/sb1"
	e := start(t, fakearm.StartOptions{})
	e.resourceGroup()
	e.wait(e.do(http.MethodPut, ns, sbAPI, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard"}}))
	if resp := e.do(http.MethodPost, ns+"/AuthorizationRules/RootManageSharedAccessKey/listKeys", sbAPI, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("listKeys of RootManageSharedAccessKey: %d, want 200", resp.StatusCode)
	}
	if resp := e.do(http.MethodGet, ns+"/AuthorizationRules/RootManageSharedAccessKey", sbAPI, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET RootManageSharedAccessKey: %d, want 200", resp.StatusCode)
	}
	if resp := e.do(http.MethodGet, ns+"/AuthorizationRules/other", sbAPI, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a rule nobody made: %d, want 404", resp.StatusCode)
	}
}
