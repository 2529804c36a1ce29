package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The parts of the chart that depend on the chosen groups and kinds (the
// values groups, kinds and generatedGroups): which CRDs are installed,
// the operator's ClusterRole, the certificate management's ClusterRole and
// the webhook configurations. Each template asks the helper
// armature.selection (templates/_helpers.tpl, hand-written) once:
//
//	{"crds": {<crd name>: true}, "groups": {<group>: [<plural>…]},
//	 "converting": [<crd name>…], "kinds": "<ARMATURE_KINDS>"}

// selectionLine starts every template that depends on the selection.
const selectionLine = `{{- $sel := include "armature.selection" . | fromJson }}`

// catalogEntry is what the chart knows of a CRD (templates/_catalog.tpl).
type catalogEntry struct {
	Name   string `json:"name"`
	Group  string `json:"group"`
	Kind   string `json:"kind"`
	Plural string `json:"plural"`
	// File is the CRD in the subchart, relative to it.
	File string `json:"file"`
	// Converts is true when config/default sends the CRD's conversions
	// to the operator (several versions).
	Converts bool `json:"converts"`
}

// crdFile is the path of a CRD in the subchart.
func crdFile(c *crd) string { return "files/" + c.group + "/" + c.plural + ".yaml" }

// catalog renders templates/_catalog.tpl: every CRD of the chart, one
// flow mapping per line.
func catalog(crds []*crd, converting map[string]bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString(`# Every CRD of the chart (in charts/` + CRDChart + `/files), read by the helper
# armature.selection (_helpers.tpl): name, group, kind, plural, file, and
# whether config/default converts it through the operator (converts).
{{- define "armature.catalog" }}
crds:
`)
	for _, c := range crds {
		e := catalogEntry{Name: c.name, Group: c.group, Kind: c.kind, Plural: c.plural, File: crdFile(c), Converts: converting[c.name]}
		line, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "- %s\n", line)
	}
	b.WriteString("{{- end }}\n")
	return b.Bytes(), nil
}

// crdChartFile renders a CRD of the subchart: the CRD document as
// config/crd has it (no comment or separator lines before it), checked
// to start as templates/crd/crds.yaml expects (metadata holds the name
// alone, then spec).
func crdChartFile(c *crd) ([]byte, error) {
	body := c.body
	for {
		line, rest, _ := bytes.Cut(body, []byte("\n"))
		t := bytes.TrimSpace(line)
		if len(t) != 0 && !bytes.HasPrefix(t, []byte("#")) && !bytes.Equal(t, []byte("---")) {
			break
		}
		body = rest
	}
	anchor := fmt.Sprintf("\nmetadata:\n  name: %s\nspec:\n", c.name)
	if n := bytes.Count(body, []byte(anchor)); n != 1 {
		return nil, fmt.Errorf("chart: %s: want metadata with its name alone, then spec (%q once), found %d: templates/crd/crds.yaml adds labels and conversion there", c.source, anchor, n)
	}
	var b bytes.Buffer
	b.WriteString(Header)
	fmt.Fprintf(&b, "# Copied from %s by hack/manifests; templates/crd/crds.yaml of the\n# armature chart installs it when selected.\n", c.source)
	b.Write(body)
	return b.Bytes(), nil
}

// crdConversion reads, from config/default's build, what it changes in
// the CRDs it sends to the operator for conversion: labels and
// spec.conversion, the same for each but for nothing. Every other CRD
// must be built as it is.
func crdConversion(def []built, crds []*crd) (labels map[string]any, conversion map[string]any, converting map[string]bool, err error) {
	converting = map[string]bool{}
	for _, c := range crds {
		b, ok := find(def, objectID{"CustomResourceDefinition", c.name})
		if !ok {
			return nil, nil, nil, fmt.Errorf("chart: CRD %s: %w", c.name, errNoObject)
		}
		l, _, _ := unstructured.NestedMap(b.obj.Object, "metadata", "labels")
		conv, _, _ := unstructured.NestedMap(b.obj.Object, "spec", "conversion")
		if len(conv) == 0 {
			if len(l) > 0 || len(b.obj.GetAnnotations()) > 0 {
				return nil, nil, nil, fmt.Errorf("chart: config/default labels or annotates CRD %s: the chart knows only the conversion's label", c.name)
			}
			continue
		}
		converting[c.name] = true
		if labels == nil {
			labels, conversion = l, conv
			continue
		}
		if !reflect.DeepEqual(l, labels) || !reflect.DeepEqual(conv, conversion) {
			return nil, nil, nil, fmt.Errorf("chart: config/default converts CRD %s with labels %v and %v, others with %v and %v: the chart has one conversion for all", c.name, l, conv, labels, conversion)
		}
	}
	return labels, conversion, converting, nil
}

// crdTemplate renders templates/crd/crds.yaml: the selected CRDs, read
// from the subchart (whose files Helm does not store with the release),
// with the chart's labels, the keep policy, and — webhook on — the
// conversion of config/default.
func crdTemplate(labels, conversion map[string]any) ([]byte, error) {
	var t tmpl
	conv, err := t.render(map[string]any{"conversion": namespaced(&t, conversion)})
	if err != nil {
		return nil, err
	}
	lab, err := yaml.Marshal(labels)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString(`# The selected CRDs (values groups and kinds): config/crd's, read from the
# subchart ` + CRDChart + ` (Helm does not store a subchart's files with the
# release: see docs/helm.md), labelled, kept on uninstall (crds.keep) and,
# with the webhook, converting through the operator as in config/default.
`)
	b.WriteString(selectionLine + "\n")
	b.WriteString(`{{- define "armature.crdConversion" }}
` + conv + `{{- end }}
{{- define "armature.crdConversionLabels" }}
` + string(lab) + `{{- end }}
{{- $files := (index .Subcharts "` + CRDChart + `").Files }}
{{- range $c := (include "armature.catalog" . | fromYaml).crds }}
{{- if hasKey $sel.crds $c.name }}
{{- $doc := $files.Get $c.file }}
{{- $anchor := printf "\nmetadata:\n  name: %s\nspec:\n" $c.name }}
{{- if not (contains $anchor $doc) }}
{{- fail (printf "the chart's CRD %s (charts/` + CRDChart + `/%s) is missing or not as hack/manifests writes it" $c.name $c.file) }}
{{- end }}
{{- $converts := and $.Values.webhook.enabled $c.converts }}
{{- $labels := include "armature.labels" $ | fromYaml }}
{{- if $converts }}
{{- $labels = merge $labels (include "armature.crdConversionLabels" $ | fromYaml) }}
{{- end }}
{{- $meta := dict "labels" $labels }}
{{- if $.Values.crds.keep }}
{{- $_ := set $meta "annotations" (dict "helm.sh/resource-policy" "keep") }}
{{- end }}
{{- $spec := "" }}
{{- if $converts }}
{{- $spec = include "armature.crdConversion" $ | trim | indent 2 | printf "%s\n" }}
{{- end }}
---
{{ replace $anchor (printf "\nmetadata:\n  name: %s\n%s\nspec:\n%s" $c.name (toYaml $meta | indent 2) $spec) $doc }}
{{- end }}
{{- end }}
`)
	return b.Bytes(), nil
}

// clusterRoleRules is the fill of the operator's ClusterRole's rules:
// BaseRules always; each selected extra CRD's rules; the kind, status and
// finalizer rules of each selected group's kinds; every verb on every
// resource of the generatedGroups.
func clusterRoleRules(t *tmpl, crds []*crd) fill {
	return func(s slot) ([]string, error) {
		out := []string{strings.TrimSuffix(s.prefix(), " ")}
		base, err := ruleLines(t, s.Indent, compact(BaseRules()))
		if err != nil {
			return nil, err
		}
		out = append(out, base...)
		for _, c := range crds {
			if len(c.extraRules) == 0 {
				continue
			}
			extra, err := ruleLines(t, s.Indent, compact(c.extraRules))
			if err != nil {
				return nil, err
			}
			out = append(out, gated(fmt.Sprintf("hasKey $sel.crds %q", c.name), extra)...)
		}
		out = append(out, "{{- range $group, $plurals := $sel.groups }}")
		for _, r := range []struct {
			verbs  []string
			suffix string
			reason string
		}{{KindVerbs, "", KindReason}, {StatusVerbs, "/status", StatusReason}, {FinalizerVerbs, "/finalizers", FinalizerReason}} {
			out = append(out, indentLines(s.Indent, comment(r.reason))...)
			out = append(out,
				s.Indent+"- apiGroups:",
				s.Indent+"  - {{ $group }}",
				s.Indent+"  resources:",
				"  {{- range $plurals }}",
				s.Indent+"  - {{ . }}"+r.suffix,
				"  {{- end }}",
				s.Indent+"  verbs:")
			for _, v := range sorted(r.verbs) {
				out = append(out, s.Indent+"  - "+v)
			}
		}
		out = append(out, "{{- end }}", "{{- range $.Values.generatedGroups }}")
		out = append(out, indentLines(s.Indent, comment(GeneratedGroupReason))...)
		out = append(out, s.Indent+"- apiGroups:", s.Indent+"  - {{ . }}", s.Indent+"  resources:", s.Indent+"  - '*'", s.Indent+"  verbs:")
		for _, v := range sorted(slices.Concat(KindVerbs, StatusVerbs, FinalizerVerbs)) {
			out = append(out, s.Indent+"  - "+v)
		}
		return append(out, "{{- end }}"), nil
	}
}

// GeneratedGroupReason is the reason of the ClusterRole's rule for a group
// of the chart's generatedGroups value.
const GeneratedGroupReason = "A group of the generated tier (value generatedGroups), whose CRDs are installed outside the chart: the rules of a kind (its resource, status and finalizers) for every resource of the group, whose kinds the chart does not list."

// ruleLines writes compacted rules, each under the comment of its reasons.
func ruleLines(t *tmpl, indent string, rules []compacted) ([]string, error) {
	var out []string
	for _, r := range rules {
		for _, reason := range r.reasons {
			out = append(out, indentLines(indent, comment(reason))...)
		}
		lines, err := t.lines(r.rule, indent, true)
		if err != nil {
			return nil, err
		}
		out = append(out, lines...)
	}
	return out, nil
}

// indentLines splits text into lines, each indented.
func indentLines(indent, text string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		out = append(out, indent+l)
	}
	return out
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// certsClusterRoleRules is the fill of the certificate management's
// ClusterRole's rules: certsRules of every CRD, with the rules on CRDs
// kept only when a selected CRD converts, naming those.
func certsClusterRoleRules(t *tmpl, crds []*crd) fill {
	return func(s slot) ([]string, error) {
		cluster, _ := certsRules(crds)
		out := []string{strings.TrimSuffix(s.prefix(), " ")}
		for _, r := range cluster {
			crdRule := slices.Equal(r.Resources, []string{"customresourcedefinitions"})
			v := map[string]any{}
			if err := convert(r, &v); err != nil {
				return nil, err
			}
			if crdRule && len(r.ResourceNames) > 0 {
				v["resourceNames"] = t.mark(func(s slot) ([]string, error) {
					return []string{
						strings.TrimSuffix(s.prefix(), " "),
						"{{- range $sel.converting }}",
						s.Indent + "- {{ . }}",
						"{{- end }}",
					}, nil
				})
			}
			lines, err := t.lines(v, s.Indent, true)
			if err != nil {
				return nil, err
			}
			if crdRule {
				lines = gated("$sel.converting", lines)
			}
			out = append(out, lines...)
		}
		return out, nil
	}
}

// convert turns v into JSON-shaped values (maps, slices) in out.
func convert(v any, out any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// webhooksFill is the fill of a webhook configuration's webhooks: the
// entries of config/default's build, an extra CRD's entry kept when its
// CRD is selected, and in the others each rule kept with its selected
// resources only; the generatedGroups get a rule of every resource and
// version, with the operations and scope of the entry's first rule.
func webhooksFill(t *tmpl, webhooks []any, crds []*crd) fill {
	return func(s slot) ([]string, error) {
		out := []string{strings.TrimSuffix(s.prefix(), " ")}
		for _, w := range webhooks {
			entry, ok := w.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("chart: a webhook entry is %T", w)
			}
			name, _ := entry["name"].(string)
			if owner := extraWebhookCRD(crds, name); owner != nil {
				lines, err := t.lines(entry, s.Indent, true)
				if err != nil {
					return nil, err
				}
				out = append(out, gated(fmt.Sprintf("hasKey $sel.crds %q", owner.name), lines)...)
				continue
			}
			rules, _ := entry["rules"].([]any)
			if len(rules) == 0 {
				return nil, fmt.Errorf("chart: webhook %s has no rules", name)
			}
			entry = maps.Clone(entry)
			entry["rules"] = t.mark(webhookRules(t, rules))
			lines, err := t.lines(entry, s.Indent, true)
			if err != nil {
				return nil, err
			}
			out = append(out, lines...)
		}
		return out, nil
	}
}

// extraWebhookCRD returns the extra CRD whose webhook entry is named name.
func extraWebhookCRD(crds []*crd, name string) *crd {
	for _, c := range crds {
		if c.webhook != nil && c.webhook.Name == name {
			return c
		}
	}
	return nil
}

// webhookRules is the fill of one webhook entry's rules.
func webhookRules(t *tmpl, rules []any) fill {
	return func(s slot) ([]string, error) {
		out := []string{strings.TrimSuffix(s.prefix(), " ")}
		for _, r := range rules {
			rule, _ := r.(map[string]any)
			groups, _ := rule["apiGroups"].([]any)
			resources, _ := rule["resources"].([]any)
			if len(groups) != 1 || len(resources) == 0 {
				return nil, fmt.Errorf("chart: webhook rule %v: want one API group and resources", rule)
			}
			plurals := make([]string, len(resources))
			for i, p := range resources {
				plurals[i] = quoteTemplate(fmt.Sprint(p))
			}
			rule = maps.Clone(rule)
			rule["resources"] = t.mark(func(s slot) ([]string, error) {
				return []string{strings.TrimSuffix(s.prefix(), " "), "{{- range $r }}", s.Indent + "- {{ . }}", "{{- end }}"}, nil
			})
			lines, err := t.lines(rule, s.Indent, true)
			if err != nil {
				return nil, err
			}
			out = append(out, fmt.Sprintf(`{{- $r := include "armature.pick" (list $sel %s (list %s)) | fromJsonArray }}`, quoteTemplate(fmt.Sprint(groups[0])), strings.Join(plurals, " ")))
			out = append(out, gated("$r", lines)...)
		}
		first, _ := rules[0].(map[string]any)
		all := map[string]any{"apiGroups": []any{t.mark(inline("{{ . }}"))}, "apiVersions": []any{"*"}, "operations": first["operations"], "resources": []any{"*"}, "scope": first["scope"]}
		lines, err := t.lines(all, s.Indent, true)
		if err != nil {
			return nil, err
		}
		out = append(out, "{{- range $.Values.generatedGroups }}")
		out = append(out, lines...)
		return append(out, "{{- end }}"), nil
	}
}

// namespaced returns a copy of v (JSON-shaped) in which every value of a
// key "namespace" that is the operator's Namespace is the release's
// namespace.
func namespaced(t *tmpl, v map[string]any) map[string]any {
	out, _ := rewrite(t, v, nil).(map[string]any)
	return out
}

// rewrite returns a copy of v (JSON-shaped) in which every value of a key
// "namespace" that is the operator's Namespace is the release's namespace
// and every string that renamed names is renamed.
func rewrite(t *tmpl, v any, renamed map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if s, ok := val.(string); ok && k == "namespace" && s == Namespace {
				out[k] = t.mark(inline("{{ $.Release.Namespace }}"))
				continue
			}
			out[k] = rewrite(t, val, renamed)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = rewrite(t, it, renamed)
		}
		return out
	case string:
		if n, ok := renamed[x]; ok {
			return n
		}
		return x
	default:
		return v
	}
}
