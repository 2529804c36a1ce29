package recording_test

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generated/profiles"
	"github.com/armature-dev/armature/recording"
)

const sample = `# a comment
provider: Microsoft.Contoso
types:
- armType: Microsoft.Contoso/widgets
  apiVersion: "2024-01-01"
  create: {status: 202, location: operation, emptyBody: true, source: recorded}
  delete: {status: 200, emptyBody: true, source: recorded}
  notFound: {status: 404, code: WidgetNotFound, source: recorded}
  defaults:
  - {path: properties.color, value: blue, source: recorded}
- armType: Microsoft.Contoso/widgets
  apiVersion: "2024-06-01"
  create: {status: 201, asyncOperation: true, source: rule}
`

func TestLoadAndFor(t *testing.T) {
	set, err := recording.LoadProfiles(fstest.MapFS{"microsoft.contoso.yaml": {Data: []byte(sample)}})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		armType, apiVersion string
		wantVersion         string
	}{
		"ExactVersion":    {armType: "Microsoft.Contoso/widgets", apiVersion: "2024-01-01", wantVersion: "2024-01-01"},
		"CaseInsensitive": {armType: "microsoft.contoso/WIDGETS", apiVersion: "2024-01-01", wantVersion: "2024-01-01"},
		"OtherVersion":    {armType: "Microsoft.Contoso/widgets", apiVersion: "2020-01-01", wantVersion: "2024-06-01"},
		"UnknownType":     {armType: "Microsoft.Contoso/gadgets", apiVersion: "2024-01-01"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := set.For(tc.armType, tc.apiVersion)
			if tc.wantVersion == "" {
				if got != nil {
					t.Fatalf("want no profile, got %+v", got)
				}
				return
			}
			if got == nil || got.APIVersion != tc.wantVersion {
				t.Fatalf("want the %s profile, got %+v", tc.wantVersion, got)
			}
		})
	}
	old := set.For("Microsoft.Contoso/widgets", "2024-01-01")
	if !old.Create.LongRunning() || old.Delete.LongRunning() {
		t.Errorf("create is long-running (Location), delete is not: %+v %+v", old.Create, old.Delete)
	}
	if diff := cmp.Diff(`"blue"`, string(old.Defaults[0].Value)); diff != "" {
		t.Errorf("default value (-want +got):\n%s", diff)
	}
	var none *recording.ProfileSet
	if none.For("Microsoft.Contoso/widgets", "2024-01-01") != nil {
		t.Error("a nil set has no profiles")
	}
}

func TestParseIsStrict(t *testing.T) {
	if _, err := recording.ParseProfile([]byte("provider: X\ntypes:\n- armType: A\n  creat: {status: 201}\n")); err == nil {
		t.Error("an unknown key must be an error, so a typo in a profile is noticed")
	}
}

// TestGenerated checks the generated profiles load, and that what the
// recordings in test/recordings show is in them (SOURCES.md lists these
// behaviours).
func TestGenerated(t *testing.T) {
	set, err := recording.LoadProfiles(profiles.Files)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		armType string
		check   func(*recording.Profile) bool
	}
	cases := map[string]want{
		"KeyVaultPUTIsSynchronous": {"Microsoft.KeyVault/vaults", func(p *recording.Profile) bool { return p.Create.Status == 200 && !p.Create.LongRunning() }},
		"StorageAccountCreateIsLocationStyle": {"Microsoft.Storage/storageAccounts", func(p *recording.Profile) bool {
			return p.Create.Status == 202 && p.Create.Location == recording.LocationOperation && !p.Create.AsyncOperation && p.Create.EmptyBody
		}},
		"StorageAccountDeleteIsSynchronous": {"Microsoft.Storage/storageAccounts", func(p *recording.Profile) bool { return p.Delete.Status == 200 && !p.Delete.LongRunning() }},
		"StorageAccountDeleteMissingIs204":  {"Microsoft.Storage/storageAccounts", func(p *recording.Profile) bool { return p.DeleteMissing.Status == 204 }},
		"StorageAccountNameRuleIsEnforced": {"Microsoft.Storage/storageAccounts", func(p *recording.Profile) bool {
			return p.Name.Error != nil && p.Name.Error.Code == "AccountNameInvalid"
		}},
		"IdentityCreateNamesItself": {"Microsoft.ManagedIdentity/userAssignedIdentities", func(p *recording.Profile) bool {
			return p.Create.Status == 201 && p.Create.Location == recording.LocationResource
		}},
		"QueueNotFound":            {"Microsoft.Storage/storageAccounts/queueServices/queues", func(p *recording.Profile) bool { return p.NotFound.Code == "QueueNotFound" && !p.NotFound.Gateway }},
		"QueueDeleteIs204":         {"Microsoft.Storage/storageAccounts/queueServices/queues", func(p *recording.Profile) bool { return p.Delete.Status == 204 }},
		"ContainerNotFound":        {"Microsoft.Storage/storageAccounts/blobServices/containers", func(p *recording.Profile) bool { return p.NotFound.Code == "ContainerNotFound" }},
		"ManagementPolicyNotFound": {"Microsoft.Storage/storageAccounts/managementPolicies", func(p *recording.Profile) bool { return p.NotFound.Code == "ManagementPolicyNotFound" }},
		"ResourceGroupDeleteIsLocationStyle": {"Microsoft.Resources/resourceGroups", func(p *recording.Profile) bool {
			return p.Delete.Status == 202 && p.Delete.Location == recording.LocationOperation
		}},
		"ResourceGroupLocations": {"Microsoft.Resources/resourceGroups", func(p *recording.Profile) bool {
			return p.Locations != nil && p.Locations.Error.Code == "LocationNotAvailableForResourceGroup"
		}},
		"ResourceGroupBeingDeleted": {"Microsoft.Resources/resourceGroups", func(p *recording.Profile) bool {
			return p.BeingDeleted != nil && p.BeingDeleted.Code == "ResourceGroupBeingDeleted"
		}},
		"RedisLinkedServerDeleteIs204": {"Microsoft.Cache/redis/linkedServers", func(p *recording.Profile) bool { return p.Delete.Status == 204 && !p.Delete.LongRunning() }},
		"RedisDeleteIsLocationOnly": {"Microsoft.Cache/redis", func(p *recording.Profile) bool {
			return p.Delete.Location == recording.LocationOperation && !p.Delete.AsyncOperation
		}},
		"StorageAccountDefaultsFromRecordings": {"Microsoft.Storage/storageAccounts", func(p *recording.Profile) bool { return hasDefault(p, "properties.encryption") }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var found bool
			for _, p := range set.Types() {
				if p.ARMType != tc.armType {
					continue
				}
				found = true
				if !tc.check(p) {
					t.Errorf("%s %s: %+v", p.ARMType, p.APIVersion, *p)
				}
			}
			if !found {
				t.Fatalf("no profile for %s", tc.armType)
			}
		})
	}
}

func hasDefault(p *recording.Profile, path string) bool {
	for _, d := range p.Defaults {
		if d.Path == path {
			return true
		}
	}
	return false
}
