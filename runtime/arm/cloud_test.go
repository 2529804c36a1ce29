package arm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/arm/cloudtest"
)

// TestCloudTokenAudience: a service principal of each cloud asks its
// cloud's Azure AD for a token of its cloud's ARM audience
// (<audience>/.default) and sends it to its cloud's ARM endpoint; a custom
// cloud's endpoint and audience are used as given.
func TestCloudTokenAudience(t *testing.T) {
	custom := cloud.Configuration{
		ActiveDirectoryAuthorityHost: "https://login.stack.example/",
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: "https://management.stack.example", Audience: "https://management.stack.example/00000000-aaaa"},
		},
	}
	type want struct{ AAD, ARM, Scope string }
	cases := map[string]struct {
		reason   string
		cloud    string
		conf     *cloud.Configuration
		endpoint string
		want     want
	}{
		"Default": {
			reason: "No cloud is Azure public cloud.",
			want:   want{"login.microsoftonline.com", "management.azure.com", "https://management.core.windows.net//.default"},
		},
		"AzurePublic": {
			cloud: "AzureCloud",
			want:  want{"login.microsoftonline.com", "management.azure.com", "https://management.core.windows.net//.default"},
		},
		"AzureUSGovernment": {
			cloud: "AzureUSGovernment",
			want:  want{"login.microsoftonline.us", "management.usgovcloudapi.net", "https://management.core.usgovcloudapi.net//.default"},
		},
		"AzureChina": {
			cloud: "azurechinacloud",
			want:  want{"login.chinacloudapi.cn", "management.chinacloudapi.cn", "https://management.core.chinacloudapi.cn//.default"},
		},
		"EndpointKeepsTheCloudsAudience": {
			reason:   "Options.Endpoint (a private endpoint, the emulator) changes where requests go, not the audience.",
			cloud:    "AzureChina",
			endpoint: "https://arm.private.example/",
			want:     want{"login.chinacloudapi.cn", "arm.private.example", "https://management.core.chinacloudapi.cn//.default"},
		},
		"Custom": {
			reason: "A custom cloud (Azure Stack Hub) gives its own endpoint and audience.",
			conf:   &custom,
			want:   want{"login.stack.example", "management.stack.example", "https://management.stack.example/00000000-aaaa/.default"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var conf cloud.Configuration
			if tc.conf != nil {
				conf = *tc.conf
			} else if tc.cloud != "" {
				var err error
				if _, conf, err = arm.LookupCloud(tc.cloud); err != nil {
					t.Fatal(err)
				}
			}
			rec := &cloudtest.Recorder{}
			sp := arm.ServicePrincipal{TenantID: "tenant-1", ClientID: "client-1", ClientSecret: "s"}
			// Azure AD knows no custom cloud's authority: the operator turns
			// instance discovery off for them.
			cred, err := sp.Credential(arm.AuthOptions{Cloud: conf, Transport: rec, DisableInstanceDiscovery: tc.conf != nil})
			if err != nil {
				t.Fatal(err)
			}
			c, err := arm.NewClient(arm.Options{Cloud: conf, Endpoint: tc.endpoint, Credential: cred, Transport: rec})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Get(context.Background(), rg, rgV); err != nil {
				t.Fatal(err)
			}
			tokens, calls := rec.Of("token"), rec.Of("arm")
			if len(tokens) != 1 || len(calls) != 1 {
				t.Fatalf("%s\ncalls: %+v", tc.reason, rec.Calls())
			}
			got := want{tokens[0].Host, calls[0].Host, tokens[0].Scope}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
			if calls[0].Authorization != "Bearer "+cloudtest.Token {
				t.Errorf("ARM got %q", calls[0].Authorization)
			}
		})
	}
}

func TestLookupCloud(t *testing.T) {
	cases := map[string]struct {
		name    string
		want    string
		wantErr error
	}{
		"Empty":           {"", arm.CloudAzurePublic, nil},
		"AzureCloud":      {"AzureCloud", arm.CloudAzurePublic, nil},
		"AzureGovernment": {"azuregovernment", arm.CloudAzureUSGovernment, nil},
		"AzureChinaCloud": {"AzureChinaCloud", arm.CloudAzureChina, nil},
		"Unknown":         {"AzureGermany", "", arm.ErrUnknownCloud},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, conf, err := arm.LookupCloud(tc.name)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Fatalf("LookupCloud(%q) = %q, %v; want %q, %v", tc.name, got, err, tc.want, tc.wantErr)
			}
			if err == nil {
				// A copy: changing it must not change azcore's.
				conf.Services[cloud.ResourceManager] = cloud.ServiceConfiguration{}
				if _, again, _ := arm.LookupCloud(tc.name); again.Services[cloud.ResourceManager].Audience == "" {
					t.Error("LookupCloud returned azcore's shared configuration")
				}
			}
		})
	}
}

func TestNewClientNeedsAnAudience(t *testing.T) {
	conf := cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: "https://arm.example"}}}
	if _, err := arm.NewClient(arm.Options{Cloud: conf, Credential: arm.StaticToken("t")}); err == nil {
		t.Error("a cloud without an audience must be refused")
	}
}
