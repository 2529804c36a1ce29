package webhook

import (
	"errors"
	"fmt"
	"strings"
)

// ARM types of the scopes that are not under a provider.
const (
	subscriptionType  = "Microsoft.Resources/subscriptions"
	resourceGroupType = "Microsoft.Resources/resourceGroups"
)

// errNotARMID is wrapped by armType for ids it cannot read.
var errNotARMID = errors.New("not an ARM resource id")

// armType returns the ARM resource type an ARM id names:
//
//	/subscriptions/s                                  → Microsoft.Resources/subscriptions
//	/subscriptions/s/resourceGroups/g                 → Microsoft.Resources/resourceGroups
//	…/providers/Microsoft.Storage/storageAccounts/a/blobServices/default
//	                                                  → Microsoft.Storage/storageAccounts/blobServices
//	/providers/Microsoft.Management/managementGroups/m → Microsoft.Management/managementGroups
//
// For an extension resource (a second `providers` segment) the type is the
// one after the last `providers`.
func armType(id string) (string, error) {
	if !strings.HasPrefix(id, "/") {
		return "", fmt.Errorf("%q: %w: it must start with /", id, errNotARMID)
	}
	segs := strings.Split(strings.Trim(id, "/"), "/")
	for _, s := range segs {
		if s == "" {
			return "", fmt.Errorf("%q: %w: empty segment", id, errNotARMID)
		}
	}
	typ := ""
	for i := 0; i < len(segs); {
		switch {
		case strings.EqualFold(segs[i], "providers"):
			if i+3 >= len(segs) {
				return "", fmt.Errorf("%q: %w: providers/<namespace>/<type>/<name> expected", id, errNotARMID)
			}
			typ = segs[i+1] + "/" + segs[i+2]
			i += 4
		case typ == "" && i == 0 && strings.EqualFold(segs[i], "subscriptions"):
			typ = subscriptionType
			i += 2
		case typ == subscriptionType && strings.EqualFold(segs[i], "resourceGroups"):
			typ = resourceGroupType
			i += 2
		case typ != "" && typ != subscriptionType && typ != resourceGroupType:
			// A child type: <type>/<name> pairs below a provider type.
			typ += "/" + segs[i]
			i += 2
		default:
			return "", fmt.Errorf("%q: %w: unexpected segment %q", id, errNotARMID, segs[i])
		}
		if i > len(segs) {
			return "", fmt.Errorf("%q: %w: %s has no name", id, errNotARMID, typ)
		}
	}
	return typ, nil
}
