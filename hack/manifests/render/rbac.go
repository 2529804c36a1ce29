package render

import (
	"bytes"
	"slices"
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

// Rule is a policy rule of the operator's ClusterRole with the reason the
// operator needs it, written as a comment above the rule in
// rbac/role.yaml. Rules merged into one (compact) carry all their reasons.
type Rule struct {
	rbacv1.PolicyRule
	// Reason says which code needs which verb, and why.
	Reason string
}

// Reasons of the rules every rendered kind gets.
const (
	// KindReason is the reason of KindVerbs.
	KindReason = "The group's kinds: the reconciler reads them through informers (get, list, watch) and writes their finalizer, annotations (last applied, operation records, claims) and owner references by patch (patch, update). It never creates or deletes them."
	// StatusReason is the reason of StatusVerbs.
	StatusReason = "Their status: conditions and ARM's answer, written by patch after every ARM call (patch, update; get by the status client)."
	// FinalizerReason is the reason of FinalizerVerbs.
	FinalizerReason = "Their finalizers subresource: setting the finalizer and owner references that block deletion, where the OwnerReferencesPermissionEnforcement admission plugin runs (update)."
	// SecretsReason is the reason of the Secret rule of BaseRules.
	SecretsReason = "Secrets: the reconciler watches the metadata of Secrets (list, watch; their data is never cached) to requeue the objects that reference one when it changes, and reads the data of the Secrets specs reference for secret values and of credential Secrets (armature-credential, the armature.dev/credential annotation) when they change (get)."
	// OutputsReason is the reason of the outputs rule of BaseRules.
	OutputsReason = "ConfigMaps and Secrets (outputs, valuesFrom): the reconciler writes the values spec.operatorSpec names into them by server-side apply (create, patch) after reading whether outputs made them, and reads the keys spec.valuesFrom names (get)."
	// EventsReason is the reason of the Event rule of BaseRules.
	EventsReason = "Events the reconciler and Actions record on objects (create; patch counts a repeated event)."
)

// BaseRules are the rules the operator needs whatever kinds it runs:
// Secrets to resolve references to secret values, ConfigMaps and Secrets
// to write outputs into, Events to report.
func BaseRules() []Rule {
	return []Rule{
		{rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch"}}, SecretsReason},
		{rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"create", "get", "patch"}}, OutputsReason},
		{rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}}, EventsReason},
	}
}

// role renders the operator's ClusterRole for the CRDs: BaseRules, the
// kind, status and finalizer rules of each, and the extra CRDs' rules,
// merged so that resources of one group with the same verbs share a rule,
// each rule under a comment giving its reasons.
func role(crds []*crd) ([]byte, error) {
	rules := BaseRules()
	for _, c := range crds {
		rules = append(rules,
			Rule{rbacv1.PolicyRule{APIGroups: []string{c.group}, Resources: []string{c.plural}, Verbs: KindVerbs}, KindReason},
			Rule{rbacv1.PolicyRule{APIGroups: []string{c.group}, Resources: []string{c.plural + "/status"}, Verbs: StatusVerbs}, StatusReason},
			Rule{rbacv1.PolicyRule{APIGroups: []string{c.group}, Resources: []string{c.plural + "/finalizers"}, Verbs: FinalizerVerbs}, FinalizerReason},
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
# Every rule says why above it. Leader election's Leases are in
# rbac/leader_election_role.yaml, the state key Secret in
# rbac/state_key_role.yaml, the metrics endpoint's TokenReviews and
# SubjectAccessReviews in rbac/metrics_auth_role.yaml.
`)
	b.Write(out)
	b.WriteString("rules:\n")
	for _, r := range compact(rules) {
		for _, reason := range r.reasons {
			b.WriteString(comment(reason))
		}
		out, err := yaml.Marshal([]any{r.rule})
		if err != nil {
			return nil, err
		}
		b.Write(out)
	}
	return b.Bytes(), nil
}

// comment wraps text into YAML comment lines of at most 76 characters.
func comment(text string) string {
	var b strings.Builder
	line := "#"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 76 && line != "#" {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
	return b.String()
}

// compact merges rules with one API group each into as few rules as
// possible: a resource's verbs are united, then resources of one group
// with the same verbs share a rule. The result is sorted by group, then
// resources.
func compact(rules []Rule) []compacted {
	type key struct{ group, resource string }
	verbs := map[key]map[string]bool{}
	reasons := map[key][]string{}
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
				if r.Reason != "" && !slices.Contains(reasons[k], r.Reason) {
					reasons[k] = append(reasons[k], r.Reason)
				}
			}
		}
	}
	type merged struct {
		group     string
		verbs     []string
		resources []string
		reasons   []string
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
		m := byGroupVerbs[id]
		m.resources = append(m.resources, k.resource)
		for _, r := range reasons[k] {
			if !slices.Contains(m.reasons, r) {
				m.reasons = append(m.reasons, r)
			}
		}
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
	out := make([]compacted, 0, len(all))
	for _, m := range all {
		// The order of reasons follows the map walk: sort for identical output.
		sort.Strings(m.reasons)
		out = append(out, compacted{
			rule:    map[string]any{"apiGroups": []string{m.group}, "resources": m.resources, "verbs": m.verbs},
			reasons: m.reasons,
		})
	}
	return out
}

// compacted is a merged rule, as YAML, and its reasons.
type compacted struct {
	rule    map[string]any
	reasons []string
}
