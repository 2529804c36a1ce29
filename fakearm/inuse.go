package fakearm

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// A DELETE of a resource another resource still uses is refused, as ARM
// does for the types below (the rule is ARM's, the codes and messages the
// public reports'): a subnet a network interface's ipConfiguration names,
// a network security group a subnet or interface names, a public IP an
// interface holds. A virtual network is refused when one of its subnets is
// in use. A user is any other resource whose body names the id in an
// `id` member (a SubResource).
var inUse = map[string]struct{ code, message, source string }{
	"microsoft.network/virtualnetworks/subnets": {
		"InUseSubnetCannotBeDeleted", "Subnet %s is in use by %s and cannot be deleted. In order to delete the subnet, delete all the resources within the subnet.",
		"https://github.com/kubernetes-sigs/cluster-api-provider-azure/issues/172",
	},
	"microsoft.network/networksecuritygroups": {
		"InUseNetworkSecurityGroupCannotBeDeleted", "Network security group %s cannot be deleted because it is in use by the following resources: %s. In order to delete the Network security group, remove the association with the resource(s).",
		"https://github.com/pulumi/pulumi-azure-native/issues/3051",
	},
	"microsoft.network/publicipaddresses": {
		"PublicIPAddressCannotBeDeleted", "Public IP address %s can not be deleted since it is still allocated to resource %s.",
		"https://github.com/ernestio/ernest/issues/514",
	},
}

// deleteInUse writes the refusal of a DELETE of key (or, for a virtual
// network, of one of its subnets) while another resource uses it. The
// caller holds s.mu.
func (s *Server) deleteInUse(w http.ResponseWriter, d *descriptor.Descriptor, key string) bool {
	targets := []string{key}
	if strings.EqualFold(d.ARMType, "Microsoft.Network/virtualNetworks") {
		for k, r := range s.resources {
			if strings.HasPrefix(k, key+"/subnets/") && r.d != nil && strings.EqualFold(r.d.ARMType, "Microsoft.Network/virtualNetworks/subnets") {
				targets = append(targets, k)
			}
		}
		slices.Sort(targets)
	}
	for _, t := range targets {
		res := s.resources[t]
		if res == nil {
			continue
		}
		rule, ok := inUse[strings.ToLower(res.ARMType)]
		if !ok {
			continue
		}
		for _, k := range sortedResourceKeys(s.resources) {
			user := s.resources[k]
			if k == t || strings.HasPrefix(k, t+"/") || strings.HasPrefix(t, k+"/") {
				continue
			}
			if names(user.Desired, t) {
				armError(w, http.StatusBadRequest, rule.code, fmt.Sprintf(rule.message, res.ID, user.ID), "")
				return true
			}
		}
	}
	return false
}

// names reports whether a body holds {"id": id} anywhere (case-insensitive).
func names(v any, id string) bool {
	switch t := v.(type) {
	case map[string]any:
		if s, ok := t["id"].(string); ok && strings.EqualFold(s, id) {
			return true
		}
		for _, x := range t {
			if names(x, id) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if names(x, id) {
				return true
			}
		}
	}
	return false
}
