package render

import (
	"bytes"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// Verbs of the rules every rendered kind gets.
var (
	// KindVerbs are the verbs on a kind's resource: the reconciler reads
	// through informers and writes annotations and finalizers by patch.
	KindVerbs = []string{"get", "list", "patch", "update", "watch"}
	// StatusVerbs are the verbs on its status subresource.
	StatusVerbs = []string{"get", "patch", "update"}
	// FinalizerVerbs are the verbs on its finalizers subresource (needed
	// where the OwnerReferencesPermissionEnforcement plugin runs).
	FinalizerVerbs = []string{"update"}
)

// BaseRules are the rules the operator needs whatever kinds it runs:
// Secrets to resolve references to secret values, Events to report.
func BaseRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
	}
}

// role renders the operator's ClusterRole for the CRDs: BaseRules, the
// kind, status and finalizer rules of each, and the extra CRDs' rules,
// merged so that resources of one group with the same verbs share a rule.
func role(crds []*crd) ([]byte, error) {
	rules := BaseRules()
	for _, c := range crds {
		rules = append(rules,
			rbacv1.PolicyRule{APIGroups: []string{c.group}, Resources: []string{c.plural}, Verbs: KindVerbs},
			rbacv1.PolicyRule{APIGroups: []string{c.group}, Resources: []string{c.plural + "/status"}, Verbs: StatusVerbs},
			rbacv1.PolicyRule{APIGroups: []string{c.group}, Resources: []string{c.plural + "/finalizers"}, Verbs: FinalizerVerbs},
		)
		rules = append(rules, c.extraRules...)
	}
	obj := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1",
		"kind":       "ClusterRole",
		"metadata": map[string]any{
			"name":   RoleName,
			"labels": map[string]any{"app.kubernetes.io/name": "armature"},
		},
		"rules": compact(rules),
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString(`# The operator's ClusterRole, least privilege for the rendered kinds: each
# kind (get, list, watch, update, patch), its status (get, update, patch)
# and finalizers (update); Secrets (get, list, watch) for references to
# secret values; Events (create, patch). Kinds with further needs (the
# Action kind's results in Secrets and ConfigMaps) add their own rules.
# Leader election's Leases are in rbac/leader_election_role.yaml.
`)
	b.Write(out)
	return b.Bytes(), nil
}

// compact merges rules with one API group each into as few rules as
// possible: a resource's verbs are united, then resources of one group
// with the same verbs share a rule. The result is sorted by group, then
// resources.
func compact(rules []rbacv1.PolicyRule) []map[string]any {
	type key struct{ group, resource string }
	verbs := map[key]map[string]bool{}
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				k := key{g, res}
				if verbs[k] == nil {
					verbs[k] = map[string]bool{}
				}
				for _, v := range r.Verbs {
					verbs[k][v] = true
				}
			}
		}
	}
	type merged struct {
		group     string
		verbs     []string
		resources []string
	}
	byGroupVerbs := map[string]*merged{}
	for k, vs := range verbs {
		list := make([]string, 0, len(vs))
		for v := range vs {
			list = append(list, v)
		}
		sort.Strings(list)
		id := k.group + "|" + strings.Join(list, ",")
		if byGroupVerbs[id] == nil {
			byGroupVerbs[id] = &merged{group: k.group, verbs: list}
		}
		byGroupVerbs[id].resources = append(byGroupVerbs[id].resources, k.resource)
	}
	all := make([]*merged, 0, len(byGroupVerbs))
	for _, m := range byGroupVerbs {
		sort.Strings(m.resources)
		all = append(all, m)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].group != all[j].group {
			return all[i].group < all[j].group
		}
		return all[i].resources[0] < all[j].resources[0]
	})
	out := make([]map[string]any, 0, len(all))
	for _, m := range all {
		out = append(out, map[string]any{"apiGroups": []string{m.group}, "resources": m.resources, "verbs": m.verbs})
	}
	return out
}
