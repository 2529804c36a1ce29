package conformance_test

import (
	"testing"
)

// TestKeyVaultRecoverFlow (issue 28.4): the shape of ASO's createOrRecover
// recordings (Test_KeyVault_WhenPurgeSpecified_PurgesSuccessfully.yaml:
// a deleted vault left by an earlier run, recovered, deleted, purged and
// created again) replays step for step: the deleted vault the recording
// finds is set up, deletedVaults is a served type.
func TestKeyVaultRecoverFlow(t *testing.T) {
	const (
		sub     = "https://management.azure.com/subscriptions/00000000-0000-0000-0000-000000000000"
		rg      = sub + "/resourceGroups/rg1"
		vaultID = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg1/providers/Microsoft.KeyVault/vaults/kv1"
		vault   = "https://management.azure.com" + vaultID + "?api-version=2023-07-01"
		deleted = sub + "/providers/Microsoft.KeyVault/locations/westus2/deletedVaults/kv1?api-version=2023-07-01"
		purge   = sub + "/providers/Microsoft.KeyVault/locations/westus2/deletedVaults/kv1/purge?api-version=2023-07-01"
		op      = sub + "/providers/Microsoft.KeyVault/locations/westus2/operationResults/abc?api-version=2023-07-01"
	)
	deletedBody := `{"id":"/subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.KeyVault/locations/westus2/deletedVaults/kv1","name":"kv1","type":"Microsoft.KeyVault/deletedVaults","properties":{"vaultId":"` + vaultID + `","location":"westus2","tags":{},"deletionDate":"2001-02-03T04:05:06Z","scheduledPurgeDate":"2001-02-03T04:05:06Z"}}`
	vaultBody := func(mode string) string {
		return `{"location":"westus2","name":"kv1","properties":{"accessPolicies":[],"createMode":"` + mode + `","enableSoftDelete":true,"sku":{"family":"A","name":"standard"},"tenantId":"00000000-0000-0000-0000-000000000000"}}`
	}
	answer := `{"id":"` + vaultID + `","name":"kv1","type":"Microsoft.KeyVault/vaults","location":"westus2","properties":{"provisioningState":"Succeeded"}}`
	its := []written{
		{"PUT", rg + "?api-version=2020-06-01", 201, `{"location":"westus2"}`, `{"name":"rg1"}`, ""},
		{"GET", deleted, 200, "", deletedBody, ""},
		{"PUT", vault, 200, vaultBody("recover"), answer, ""},
		{"DELETE", vault, 200, "", "", ""},
		{"GET", deleted, 200, "", deletedBody, ""},
		{"POST", purge, 202, "", "", op},
		{"GET", op, 200, "", "", ""},
		{"GET", deleted, 404, "", `{"error":{"code":"DeletedVaultNotFound"}}`, ""},
		{"PUT", vault, 200, vaultBody("default"), answer, ""},
	}
	replayWritten(t, "kv.yaml", its)
}
