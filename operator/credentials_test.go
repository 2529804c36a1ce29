package operator

import (
	"flag"
	"strings"
	"testing"

	"github.com/armature-dev/armature/runtime/arm"
)

// TestSecretClients: a credential Secret's federatedTokenFile must lie in
// --federated-token-dir: the operator reads no other file a Secret names.
func TestSecretClients(t *testing.T) {
	c := Config{ARMEndpoint: "https://127.0.0.1:1", FederatedTokenDir: "/var/run/secrets/azure/tokens"}
	build := c.SecretClients(nil)
	cases := map[string]struct {
		file string
		ok   bool
	}{
		"InTheDir":     {"/var/run/secrets/azure/tokens/azure-identity-token", true},
		"Elsewhere":    {"/var/run/secrets/kubernetes.io/serviceaccount/token", false},
		"DotDot":       {"/var/run/secrets/azure/tokens/../../kubernetes.io/serviceaccount/token", false},
		"TheDirItself": {"/var/run/secrets/azure/tokens", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := build(arm.ServicePrincipal{TenantID: "t", ClientID: "c", FederatedTokenFile: tc.file})
			if (err == nil) != tc.ok {
				t.Errorf("%s: err = %v", tc.file, err)
			}
			if err != nil && !strings.Contains(err.Error(), "--federated-token-dir") {
				t.Errorf("the error says which flag: %v", err)
			}
		})
	}
}

func TestBindFlagsCredentials(t *testing.T) {
	t.Setenv("AZURE_AUTHORITY_HOST", "https://login.example/")
	var c Config
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	c.BindFlags(fs)
	if err := fs.Parse([]string{"--register-providers"}); err != nil {
		t.Fatal(err)
	}
	if !c.Reconciler.RegisterProviders || c.AuthorityHost != "https://login.example/" || c.FederatedTokenDir != defaultFederatedTokenDir {
		t.Errorf("config %+v", c)
	}
}
