package operator

import (
	"fmt"
	"path/filepath"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/credentials"
)

// emulator reports whether the operator talks to an ARM emulator: an
// ARMEndpoint with neither Cloud nor ARMAudience. The operator's own
// credential is then the static ARMToken, and Azure AD is the emulator's.
func (c *Config) emulator() bool {
	return c.ARMEndpoint != "" && c.Cloud == "" && c.ARMAudience == ""
}

// CloudConfiguration is the operator's cloud: Cloud's configuration
// (arm.LookupCloud; Azure public cloud when empty) with ARMEndpoint,
// ARMAudience and AuthorityHost in place of its ARM endpoint, token
// audience and Azure AD authority host where they are set. An emulator
// (ARMEndpoint alone) is also its own Azure AD unless AuthorityHost says
// otherwise.
func (c *Config) CloudConfiguration() (cloud.Configuration, error) {
	_, conf, err := arm.LookupCloud(c.Cloud)
	if err != nil {
		return cloud.Configuration{}, fmt.Errorf("--cloud: %w", err)
	}
	rm := conf.Services[cloud.ResourceManager]
	if c.ARMEndpoint != "" {
		rm.Endpoint = c.ARMEndpoint
	}
	if c.ARMAudience != "" {
		rm.Audience = c.ARMAudience
	}
	conf.Services[cloud.ResourceManager] = rm
	switch {
	case c.AuthorityHost != "":
		conf.ActiveDirectoryAuthorityHost = c.AuthorityHost
	case c.emulator():
		conf.ActiveDirectoryAuthorityHost = c.ARMEndpoint
	}
	return conf, nil
}

// knownAuthority reports whether host is the Azure AD of a cloud
// arm.LookupCloud knows: only those answer Azure AD's instance discovery.
func knownAuthority(host string) bool {
	for _, name := range arm.CloudNames() {
		if _, conf, _ := arm.LookupCloud(name); conf.ActiveDirectoryAuthorityHost == host {
			return true
		}
	}
	return false
}

// Credential returns the operator's own ARM credential: the static
// ARMToken for an emulator, else azidentity's DefaultAzureCredential
// (environment, workload identity, managed identity, Azure CLI) against
// the Azure AD of CloudConfiguration.
func (c *Config) Credential() (azcore.TokenCredential, error) {
	return c.credential(nil)
}

// credential is Credential with the token requests sent over transport
// (nil: azcore's).
func (c *Config) credential(transport policy.Transporter) (azcore.TokenCredential, error) {
	if c.emulator() {
		return arm.StaticToken(c.ARMToken), nil
	}
	conf, err := c.CloudConfiguration()
	if err != nil {
		return nil, err
	}
	return azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{
		ClientOptions:            azcore.ClientOptions{Cloud: conf, Transport: transport},
		DisableInstanceDiscovery: !knownAuthority(conf.ActiveDirectoryAuthorityHost),
	})
}

// secretCloud is the cloud of a credential Secret's service principal:
// the operator's (CloudConfiguration) when the Secret names none or the
// operator's, else the named cloud as azcore configures it (the
// operator's --arm-endpoint, --arm-audience and --authority-host are for
// its own cloud only).
func (c *Config) secretCloud(name string) (cloud.Configuration, error) {
	own, err := c.CloudConfiguration()
	if err != nil || name == "" {
		return own, err
	}
	canonical, conf, err := arm.LookupCloud(name)
	if err != nil {
		return cloud.Configuration{}, fmt.Errorf("the credential's cloud: %w", err)
	}
	if mine, _, _ := arm.LookupCloud(c.Cloud); canonical == mine {
		return own, nil
	}
	return conf, nil
}

const defaultFederatedTokenDir = "/var/run/secrets/azure/tokens"

// SecretClients builds the ARM client of a credential Secret's service
// principal, over transport (nil: azcore's): azidentity against the Azure
// AD of its cloud and ARM at its cloud's endpoint, tokens for its cloud's
// audience. Its cloud is the one the Secret names (ServicePrincipal.Cloud)
// or the operator's (CloudConfiguration: AuthorityHost, else the emulator's
// ARMEndpoint, else Cloud's).
func (c *Config) SecretClients(transport policy.Transporter) credentials.NewClientFunc {
	return func(sp arm.ServicePrincipal) (arm.Client, error) {
		if f := sp.FederatedTokenFile; f != "" {
			dir := c.FederatedTokenDir
			if dir == "" {
				dir = defaultFederatedTokenDir
			}
			if rel, err := filepath.Rel(dir, filepath.Clean(f)); err != nil || !filepath.IsLocal(rel) || rel == "." {
				return nil, fmt.Errorf("federatedTokenFile %q is not in %s (the operator's --federated-token-dir)", f, dir)
			}
		}
		conf, err := c.secretCloud(sp.Cloud)
		if err != nil {
			return nil, err
		}
		cred, err := sp.Credential(arm.AuthOptions{Cloud: conf, DisableInstanceDiscovery: !knownAuthority(conf.ActiveDirectoryAuthorityHost), Transport: transport})
		if err != nil {
			return nil, err
		}
		return arm.NewClient(arm.Options{Cloud: conf, Credential: cred, Transport: transport, Budget: budget(c.BudgetShare)})
	}
}
