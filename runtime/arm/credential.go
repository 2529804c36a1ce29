package arm

import (
	"errors"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

// ServicePrincipal is an Azure AD application's credential, as a credential
// Secret holds it: a client secret, or a federated token file (workload
// identity: a projected service-account token Azure AD trusts).
type ServicePrincipal struct {
	TenantID string
	ClientID string
	// ClientSecret is the application's secret; or
	ClientSecret string
	// FederatedTokenFile is the path of a token file, read at every token
	// request (the kubelet rotates it).
	FederatedTokenFile string
	// Cloud names the Azure cloud the principal belongs to (LookupCloud:
	// AzurePublic, AzureUSGovernment, AzureChina), from a credential
	// Secret's optional key "cloud". Empty: the operator's cloud. Credential
	// does not read it: the caller picks the AuthOptions and the client's
	// Options.Cloud for it (operator Config.SecretClients).
	Cloud string
}

// AuthOptions say where Azure AD is and how to reach it.
type AuthOptions struct {
	// Cloud is the Azure cloud whose Azure AD issues the tokens
	// (its ActiveDirectoryAuthorityHost). Defaults to Azure public cloud.
	Cloud cloud.Configuration
	// AuthorityHost is Azure AD's endpoint, e.g. the emulator's URL, in
	// place of Cloud's. Defaults to Cloud's authority host
	// (https://login.microsoftonline.com/ for Azure public cloud).
	AuthorityHost string
	// DisableInstanceDiscovery skips Azure AD's instance metadata request,
	// for private clouds and the emulator. Defaults to false.
	DisableInstanceDiscovery bool
	// Transport sends the token requests. Defaults to azcore's.
	Transport policy.Transporter
}

// Credential returns the azcore credential of the service principal:
// azidentity's ClientSecretCredential or WorkloadIdentityCredential.
func (sp ServicePrincipal) Credential(o AuthOptions) (azcore.TokenCredential, error) {
	if sp.TenantID == "" || sp.ClientID == "" {
		return nil, errors.New("arm: a service principal needs a tenant id and a client id")
	}
	co := azcore.ClientOptions{Transport: o.Transport}
	if host := o.authorityHost(); host != "" {
		co.Cloud = cloud.Configuration{ActiveDirectoryAuthorityHost: host}
	}
	switch {
	case sp.ClientSecret != "" && sp.FederatedTokenFile != "":
		return nil, errors.New("arm: a service principal has a client secret or a federated token file, not both")
	case sp.ClientSecret != "":
		return azidentity.NewClientSecretCredential(sp.TenantID, sp.ClientID, sp.ClientSecret, &azidentity.ClientSecretCredentialOptions{
			ClientOptions: co, DisableInstanceDiscovery: o.DisableInstanceDiscovery,
		})
	case sp.FederatedTokenFile != "":
		return azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{
			ClientOptions: co, DisableInstanceDiscovery: o.DisableInstanceDiscovery,
			TenantID: sp.TenantID, ClientID: sp.ClientID, TokenFilePath: sp.FederatedTokenFile,
		})
	}
	return nil, errors.New("arm: a service principal needs a client secret or a federated token file")
}

// authorityHost is Azure AD's endpoint: AuthorityHost, else Cloud's; empty
// means azidentity's default (Azure public cloud).
func (o AuthOptions) authorityHost() string {
	if o.AuthorityHost != "" {
		return o.AuthorityHost
	}
	return o.Cloud.ActiveDirectoryAuthorityHost
}
