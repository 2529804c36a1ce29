package operator

import (
	"context"
	"errors"
	"flag"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/arm/cloudtest"
)

const emulatorURL = "https://127.0.0.1:8443"

// sent is where a client's token came from and where it went.
type sent struct{ AAD, Scope, ARM string }

// getThrough sends one GET through a client of cred and conf over rec and
// returns what rec saw.
func getThrough(t *testing.T, c arm.Client, rec *cloudtest.Recorder) sent {
	t.Helper()
	if _, err := c.Get(context.Background(), "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg", "2024-03-01"); err != nil {
		t.Fatal(err)
	}
	tokens, calls := rec.Of("token"), rec.Of("arm")
	if len(tokens) != 1 || len(calls) != 1 {
		t.Fatalf("want one token request and one ARM request, got %+v", rec.Calls())
	}
	if calls[0].Authorization != "Bearer "+cloudtest.Token {
		t.Errorf("ARM got %q", calls[0].Authorization)
	}
	return sent{tokens[0].Host, tokens[0].Scope, calls[0].Host}
}

var (
	public = sent{"login.microsoftonline.com", "https://management.core.windows.net//.default", "management.azure.com"}
	usgov  = sent{"login.microsoftonline.us", "https://management.core.usgovcloudapi.net//.default", "management.usgovcloudapi.net"}
	china  = sent{"login.chinacloudapi.cn", "https://management.core.chinacloudapi.cn//.default", "management.chinacloudapi.cn"}
)

// TestSecretClientsClouds: a credential Secret's service principal asks
// the Azure AD of its cloud for a token of its cloud's ARM audience and
// sends it to its cloud's ARM: the operator's cloud, unless the Secret
// names another.
func TestSecretClientsClouds(t *testing.T) {
	cases := map[string]struct {
		reason  string
		cfg     Config
		cloud   string
		want    sent
		wantErr error
	}{
		"Default": {
			reason: "No --cloud is Azure public cloud.",
			want:   public,
		},
		"OperatorInUSGovernment": {
			cfg:  Config{Cloud: "AzureUSGovernment"},
			want: usgov,
		},
		"OperatorInChina": {
			cfg:  Config{Cloud: "AzureChinaCloud"},
			want: china,
		},
		"SecretNamesAnotherCloud": {
			reason: "The Secret's cloud wins over the operator's.",
			cfg:    Config{Cloud: "AzurePublic"},
			cloud:  "AzureUSGovernment",
			want:   usgov,
		},
		"SecretNamesTheOperatorsCloud": {
			reason: "The operator's overrides stay when the Secret names the operator's own cloud.",
			cfg:    Config{Cloud: "AzureChina", ARMEndpoint: "https://arm.private.example"},
			cloud:  "azurechina",
			want:   sent{"login.chinacloudapi.cn", "https://management.core.chinacloudapi.cn//.default", "arm.private.example"},
		},
		"Emulator": {
			reason: "--arm-endpoint alone is an emulator: its own Azure AD, public cloud's audience.",
			cfg:    Config{ARMEndpoint: emulatorURL},
			want:   sent{"127.0.0.1:8443", "https://management.core.windows.net//.default", "127.0.0.1:8443"},
		},
		"EmulatorAndPublicSecret": {
			reason: "A Secret naming AzurePublic under an emulator stays on the emulator.",
			cfg:    Config{ARMEndpoint: emulatorURL},
			cloud:  "AzurePublic",
			want:   sent{"127.0.0.1:8443", "https://management.core.windows.net//.default", "127.0.0.1:8443"},
		},
		"Custom": {
			reason: "A custom cloud: --arm-endpoint, --arm-audience and --authority-host.",
			cfg:    Config{ARMEndpoint: "https://management.stack.example/", ARMAudience: "https://management.stack.example/0000-aaaa", AuthorityHost: "https://login.stack.example/"},
			want:   sent{"login.stack.example", "https://management.stack.example/0000-aaaa/.default", "management.stack.example"},
		},
		"UnknownSecretCloud": {
			cloud:   "AzureGermany",
			wantErr: arm.ErrUnknownCloud,
		},
		"UnknownOperatorCloud": {
			cfg:     Config{Cloud: "Mars"},
			wantErr: arm.ErrUnknownCloud,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rec := &cloudtest.Recorder{}
			c, err := tc.cfg.SecretClients(rec)(arm.ServicePrincipal{TenantID: "tenant-1", ClientID: "client-1", ClientSecret: "s", Cloud: tc.cloud})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("%s\nerr = %v, want %v", tc.reason, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, getThrough(t, c, rec)); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestOwnCredentialCloud: the operator's own credential
// (DefaultAzureCredential, here its environment credential) asks its
// cloud's Azure AD for its cloud's audience; an emulator gets the static
// token and no token request.
func TestOwnCredentialCloud(t *testing.T) {
	t.Setenv("AZURE_TENANT_ID", "tenant-1")
	t.Setenv("AZURE_CLIENT_ID", "client-1")
	t.Setenv("AZURE_CLIENT_SECRET", "s")
	cases := map[string]struct {
		cfg  Config
		want sent
	}{
		"AzurePublic":       {Config{}, public},
		"AzureUSGovernment": {Config{Cloud: "AzureUSGovernment"}, usgov},
		"AzureChina":        {Config{Cloud: "AzureChina"}, china},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rec := &cloudtest.Recorder{}
			cred, err := tc.cfg.credential(rec)
			if err != nil {
				t.Fatal(err)
			}
			conf, err := tc.cfg.CloudConfiguration()
			if err != nil {
				t.Fatal(err)
			}
			c, err := arm.NewClient(arm.Options{Cloud: conf, Credential: cred, Transport: rec})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, getThrough(t, c, rec)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	cfg := Config{ARMEndpoint: emulatorURL, ARMToken: "t"}
	if cred, err := cfg.Credential(); err != nil || cred != arm.StaticToken("t") {
		t.Errorf("an emulator's credential is the static token: %v, %v", cred, err)
	}
}

func TestBindFlagsCloud(t *testing.T) {
	cases := map[string]struct {
		env  map[string]string
		args []string
		want string
	}{
		"Default":        {nil, nil, ""},
		"AZURE_CLOUD":    {map[string]string{"AZURE_CLOUD": "AzureChinaCloud"}, nil, "AzureChinaCloud"},
		"ARMATURE_CLOUD": {map[string]string{"AZURE_CLOUD": "AzureChinaCloud", "ARMATURE_CLOUD": "AzureUSGovernment"}, nil, "AzureUSGovernment"},
		"Flag":           {map[string]string{"ARMATURE_CLOUD": "AzureUSGovernment"}, []string{"--cloud=AzureChina"}, "AzureChina"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("AZURE_CLOUD", "")
			t.Setenv("ARMATURE_CLOUD", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var c Config
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			c.BindFlags(fs)
			if err := fs.Parse(append(tc.args, "--arm-audience=https://a.example")); err != nil {
				t.Fatal(err)
			}
			if c.Cloud != tc.want || c.ARMAudience != "https://a.example" {
				t.Errorf("cloud %q audience %q, want %q", c.Cloud, c.ARMAudience, tc.want)
			}
		})
	}
}

// TestCloudConfiguration: the flags over the cloud's configuration.
func TestCloudConfiguration(t *testing.T) {
	rmOf := func(c cloud.Configuration) cloud.ServiceConfiguration { return c.Services[cloud.ResourceManager] }
	type want struct{ AAD, Endpoint, Audience string }
	cases := map[string]struct {
		cfg  Config
		want want
	}{
		"Public":   {Config{}, want{"https://login.microsoftonline.com/", "https://management.azure.com", "https://management.core.windows.net/"}},
		"Emulator": {Config{ARMEndpoint: emulatorURL}, want{emulatorURL, emulatorURL, "https://management.core.windows.net/"}},
		"EmulatorWithItsAuthority": {Config{ARMEndpoint: emulatorURL, AuthorityHost: "https://aad.example/"},
			want{"https://aad.example/", emulatorURL, "https://management.core.windows.net/"}},
		"GovernmentPrivateEndpoint": {Config{Cloud: "AzureUSGovernment", ARMEndpoint: "https://arm.private.example"},
			want{"https://login.microsoftonline.us/", "https://arm.private.example", "https://management.core.usgovcloudapi.net/"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			conf, err := tc.cfg.CloudConfiguration()
			if err != nil {
				t.Fatal(err)
			}
			got := want{conf.ActiveDirectoryAuthorityHost, rmOf(conf).Endpoint, rmOf(conf).Audience}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
