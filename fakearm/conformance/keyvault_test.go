package conformance_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/fakearm/conformance"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/recording"
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
	type it struct {
		method, url string
		code        int
		req, body   string
		location    string
	}
	its := []it{
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
	var b strings.Builder
	b.WriteString("version: 1\ninteractions:\n")
	for _, x := range its {
		b.WriteString("- request:\n    body: '" + x.req + "'\n    headers: {}\n    url: " + x.url + "\n    method: " + x.method + "\n  response:\n    body: '" + x.body + "'\n    headers:\n")
		if x.location != "" {
			b.WriteString("      Location:\n      - " + x.location + "\n")
		} else {
			b.WriteString("      X-Nothing:\n      - \"\"\n")
		}
		b.WriteString("    code: " + strconv.Itoa(x.code) + "\n")
	}
	c, err := recording.ParseCassette([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	descs := apis.Descriptors()
	h, err := fakearm.New(descs, fakearm.Options{RetryAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	rec := conformance.Replay("kv.yaml", c, h, conformance.Options{Descriptors: descs})
	var why []string
	for _, s := range rec.Steps {
		if !s.Match {
			why = append(why, s.Method+" #"+strconv.Itoa(s.Interactions[0])+" "+s.Path+": "+s.Why)
		}
	}
	if len(why) > 0 || rec.Total != len(its) {
		t.Errorf("%d of %d steps match (want %d):\n%s", rec.Matching, rec.Total, len(its), strings.Join(why, "\n"))
	}
	if len(rec.Setup) != 1 || !strings.Contains(rec.Setup[0], "DELETE") {
		t.Errorf("setup %q, want the deleted vault's PUT and DELETE", rec.Setup)
	}
}
