package arm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
)

// Names of the Azure clouds LookupCloud knows (azcore's configurations).
const (
	// CloudAzurePublic is Azure's public cloud (cloud.AzurePublic): ARM at
	// https://management.azure.com, Azure AD at login.microsoftonline.com.
	CloudAzurePublic = "AzurePublic"
	// CloudAzureUSGovernment is Azure Government (cloud.AzureGovernment):
	// ARM at https://management.usgovcloudapi.net, Azure AD at
	// login.microsoftonline.us.
	CloudAzureUSGovernment = "AzureUSGovernment"
	// CloudAzureChina is Azure operated by 21Vianet (cloud.AzureChina): ARM
	// at https://management.chinacloudapi.cn, Azure AD at
	// login.chinacloudapi.cn.
	CloudAzureChina = "AzureChina"
)

// cloudAliases maps every accepted spelling (lower case) to its cloud:
// the names above, azcore's variable names and the Azure CLI's
// (az cloud list).
var cloudAliases = map[string]string{
	"azurepublic":       CloudAzurePublic,
	"azurecloud":        CloudAzurePublic,
	"public":            CloudAzurePublic,
	"azureusgovernment": CloudAzureUSGovernment,
	"azuregovernment":   CloudAzureUSGovernment,
	"usgovernment":      CloudAzureUSGovernment,
	"azurechina":        CloudAzureChina,
	"azurechinacloud":   CloudAzureChina,
	"china":             CloudAzureChina,
}

// CloudNames are the canonical cloud names, sorted.
func CloudNames() []string {
	return []string{CloudAzureChina, CloudAzurePublic, CloudAzureUSGovernment}
}

// ErrUnknownCloud is LookupCloud's error for a name it does not know.
var ErrUnknownCloud = errors.New("unknown cloud")

// LookupCloud returns the canonical name and a copy of azcore's
// configuration (ARM endpoint and token audience, Azure AD authority host)
// of a cloud named by name, case-insensitively: AzurePublic (also
// AzureCloud), AzureUSGovernment (also AzureGovernment) or AzureChina (also
// AzureChinaCloud). An empty name is AzurePublic.
func LookupCloud(name string) (string, cloud.Configuration, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		n = "azurepublic"
	}
	canonical, ok := cloudAliases[n]
	if !ok {
		return "", cloud.Configuration{}, fmt.Errorf("%w %q: want one of %s", ErrUnknownCloud, name, strings.Join(CloudNames(), ", "))
	}
	var conf cloud.Configuration
	switch canonical {
	case CloudAzureUSGovernment:
		conf = cloud.AzureGovernment
	case CloudAzureChina:
		conf = cloud.AzureChina
	default:
		conf = cloud.AzurePublic
	}
	return canonical, copyCloud(conf), nil
}

// copyCloud copies c: azcore's configurations are shared variables.
func copyCloud(c cloud.Configuration) cloud.Configuration {
	out := cloud.Configuration{ActiveDirectoryAuthorityHost: c.ActiveDirectoryAuthorityHost, Services: map[cloud.ServiceName]cloud.ServiceConfiguration{}}
	for k, v := range c.Services {
		out.Services[k] = v
	}
	return out
}

// resourceManager is the ARM part of opts: the Cloud's (Azure public
// cloud's when unset), with Endpoint instead of the cloud's endpoint when
// set.
func resourceManager(opts Options) (cloud.Configuration, error) {
	conf := opts.Cloud
	if conf.ActiveDirectoryAuthorityHost == "" && len(conf.Services) == 0 {
		conf = cloud.AzurePublic
	}
	rm := conf.Services[cloud.ResourceManager]
	if opts.Endpoint != "" {
		rm.Endpoint = strings.TrimSuffix(opts.Endpoint, "/")
	}
	switch {
	case rm.Endpoint == "":
		return cloud.Configuration{}, errors.New("arm: the cloud configuration has no ARM endpoint: set Options.Endpoint")
	case rm.Audience == "":
		return cloud.Configuration{}, errors.New("arm: the cloud configuration has no ARM token audience")
	}
	return cloud.Configuration{
		ActiveDirectoryAuthorityHost: conf.ActiveDirectoryAuthorityHost,
		Services:                     map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: rm},
	}, nil
}
