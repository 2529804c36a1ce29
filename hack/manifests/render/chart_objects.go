package render

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/webhook"
)

// Gates of the chart's values, as template conditions.
const (
	// webhookGate renders what config/default adds to its base: the
	// webhook configurations, their Service, the certificate and its
	// RBAC, the operator's webhook flags and port, the CRDs' conversion.
	webhookGate = "$.Values.webhook.enabled"
	// leaderGate renders leader election: the flag and its Role.
	leaderGate = "$.Values.leaderElection.enabled"
	// metricsGate renders the metrics endpoint's Service.
	metricsGate = "$.Values.metrics.enabled"
	// metricsAuthGate renders the RBAC of the metrics endpoint's
	// authentication and authorization (--metrics-secure).
	metricsAuthGate = "and $.Values.metrics.enabled $.Values.metrics.secure"
)

// objectGates are the objects of config/default that a value turns off,
// besides those of the webhook (found by building config/default without
// it). Each must be in the build.
var objectGates = map[objectID]string{
	{"ClusterRole", "armature-metrics-auth"}:        metricsAuthGate,
	{"ClusterRoleBinding", "armature-metrics-auth"}: metricsAuthGate,
	{"ClusterRole", "armature-metrics-reader"}:      metricsAuthGate,
	{"Service", "armature-operator-metrics"}:        metricsGate,
	{"Role", "armature-leader-election"}:            leaderGate,
	{"RoleBinding", "armature-leader-election"}:     leaderGate,
}

// Flags of the operator's container that values set.
const (
	leaderElectFlag = "--leader-elect"
	metricsFlag     = "--metrics-bind-address="
	// kindsEnv is the operator's --kinds flag's environment variable (Config.BindFlags).
	kindsEnv = "ARMATURE_KINDS"
)

// chartDefaults are the values of values.yaml taken from config/default.
type chartDefaults struct {
	Image      string
	PullPolicy string
	Replicas   int64
	Resources  map[string]any
	Env        map[string]string
}

// chartGen converts config/default's build into the chart's templates.
type chartGen struct {
	crds      []*crd
	def, base []built
	defaults  chartDefaults
	// configMap is the template of the operator's environment, for the
	// Deployment's checksum annotation.
	configMap string
	// renamed maps the generated ConfigMap's hashed name to its name.
	renamed map[string]string
}

// templatePath is where a built object's template goes: the path of its
// file under config/, or of its generator's name beside the kustomization
// that declares it.
func templatePath(b built) string {
	if b.generator != "" {
		dir := b.origin[:strings.LastIndex(b.origin, "/")+1]
		return "templates/" + dir + b.generator + ".yaml"
	}
	return "templates/" + b.origin
}

// gate returns the condition that renders a built object ("" always).
func (g *chartGen) gate(b built) string {
	var conds []string
	if _, ok := find(g.base, b.id()); !ok && b.generator == "" {
		conds = append(conds, webhookGate)
	}
	if c, ok := objectGates[b.id()]; ok {
		conds = append(conds, c)
	}
	switch len(conds) {
	case 0:
		return ""
	case 1:
		return conds[0]
	}
	return "and (" + strings.Join(conds, ") (") + ")"
}

// object converts a built object into template text, and says whether it
// asks for the selection ($sel).
func (g *chartGen) object(b built) (text string, selection bool, err error) {
	t := &tmpl{}
	obj, _ := rewrite(t, b.obj.Object, g.renamed).(map[string]any)
	md, _ := obj["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	md["labels"] = t.mark(func(s slot) ([]string, error) {
		return t.keyed(s, labels, `{{- include "armature.labels" $ | nindent `+strconv.Itoa(len(s.child()))+` }}`)
	})
	switch id := b.id(); {
	case b.generator != "":
		md["name"] = b.generator
		err = g.configMapData(t, b, obj)
		selection = true
	case id.kind == "Deployment":
		err = g.deployment(t, obj)
	case id.kind == "ServiceAccount":
		existing, _ := md["annotations"].(map[string]any)
		md["annotations"] = t.mark(withMap(existing, `$.Values.serviceAccount.annotations`,
			`{{- with $.Values.azure.workloadIdentity.clientID }}{{ $_ := set $m "azure.workload.identity/client-id" . }}{{ end }}`))
	case id == objectID{"ClusterRole", RoleName}:
		obj["rules"] = t.mark(clusterRoleRules(t, g.crds))
		selection = true
	case id == objectID{"ClusterRole", CertsRoleName}:
		obj["rules"] = t.mark(certsClusterRoleRules(t, g.crds))
		selection = true
	case id == objectID{"ValidatingWebhookConfiguration", webhook.ValidatingConfigurationName},
		id == objectID{"MutatingWebhookConfiguration", webhook.MutatingConfigurationName}:
		ws, _ := obj["webhooks"].([]any)
		obj["webhooks"] = t.mark(webhooksFill(t, ws, g.crds))
		selection = true
	}
	if err != nil {
		return "", false, err
	}
	text, err = t.render(obj)
	if err != nil {
		return "", false, fmt.Errorf("chart: %s: %w", b.id(), err)
	}
	if i := strings.Index(text, Namespace); i >= 0 {
		return "", false, fmt.Errorf("chart: %s names namespace %s where the chart cannot put the release's (%q): update rewrite", b.id(), Namespace, text[max(0, i-40):min(len(text), i+40)])
	}
	return text, selection, nil
}

// withMap is the fill of a map that values extend: the existing entries,
// then the map value at values (a map or null), then what extra sets in
// $m; the key is left out when all are empty.
func withMap(existing map[string]any, values, extra string) fill {
	return func(s slot) ([]string, error) {
		raw := []byte("{}")
		if len(existing) > 0 {
			var err error
			if raw, err = json.Marshal(existing); err != nil {
				return nil, err
			}
		}
		return []string{
			fmt.Sprintf(`{{- $m := merge (dict) (%s | default dict) (%s | fromJson) }}`, values, quoteTemplate(string(raw))),
			extra,
			`{{- with $m }}`,
			strings.TrimSuffix(s.prefix(), " "),
			fmt.Sprintf(`{{- toYaml . | nindent %d }}`, len(s.child())),
			`{{- end }}`,
		}, nil
	}
}

// configMapData turns the generated ConfigMap of the operator's
// environment into one of values: ARMATURE_KINDS from the selection, the
// other keys from the value env (whose defaults are config/'s).
func (g *chartGen) configMapData(t *tmpl, b built, obj map[string]any) error {
	if b.obj.GetKind() != "ConfigMap" {
		return fmt.Errorf("chart: %s made by generator %s: the chart knows the operator's ConfigMap only", b.id(), b.generator)
	}
	data, _ := obj["data"].(map[string]any)
	if _, ok := data[kindsEnv]; !ok {
		return fmt.Errorf("chart: ConfigMap %s has no %s", b.generator, kindsEnv)
	}
	g.defaults.Env = map[string]string{}
	for k, v := range data {
		if k != kindsEnv {
			g.defaults.Env[k] = fmt.Sprint(v)
		}
	}
	obj["data"] = t.mark(func(s slot) ([]string, error) {
		return []string{
			strings.TrimSuffix(s.prefix(), " "),
			s.child() + kindsEnv + ": {{ $sel.kinds | quote }}",
			`{{- range $k, $v := $.Values.env }}`,
			fmt.Sprintf(`{{- if eq $k %q }}{{ fail "env.%s: set the values groups and kinds instead" }}{{ end }}`, kindsEnv, kindsEnv),
			s.child() + `{{ $k }}: {{ $v | toString | quote }}`,
			`{{- end }}`,
		}, nil
	})
	return nil
}

// deployment turns the operator's Deployment into one of values: replicas,
// image, arguments (leader election, metrics, the webhook's flags),
// resources, credentials, scheduling. Lists of config/default that its
// base lacks (the webhook's arguments and port) are gated on the webhook.
func (g *chartGen) deployment(t *tmpl, obj map[string]any) error {
	base, ok := find(g.base, objectID{"Deployment", stringAt(obj, "metadata", "name")})
	if !ok {
		return fmt.Errorf("chart: config/default without the webhook has no Deployment %s", stringAt(obj, "metadata", "name"))
	}
	spec, _ := obj["spec"].(map[string]any)
	if r, ok := spec["replicas"].(int64); ok {
		g.defaults.Replicas = r
	} else if f, ok := spec["replicas"].(float64); ok {
		g.defaults.Replicas = int64(f)
	}
	spec["replicas"] = t.mark(inline("{{ $.Values.replicas }}"))
	pt, _ := spec["template"].(map[string]any)
	pmd, _ := pt["metadata"].(map[string]any)
	ann, _ := pmd["annotations"].(map[string]any)
	pmd["annotations"] = t.mark(func(s slot) ([]string, error) {
		return t.keyed(s, ann,
			`$INDENT`+`checksum/config: {{ include (print $.Template.BasePath "/`+strings.TrimPrefix(g.configMap, "templates/")+`") $ | sha256sum }}`,
			`{{- with $.Values.podAnnotations }}`,
			`{{- toYaml . | nindent `+strconv.Itoa(len(s.child()))+` }}`,
			`{{- end }}`)
	})
	plabels, _ := pmd["labels"].(map[string]any)
	pmd["labels"] = t.mark(func(s slot) ([]string, error) {
		return t.keyed(s, plabels,
			`{{- if $.Values.azure.workloadIdentity.clientID }}`,
			`$INDENT`+`azure.workload.identity/use: "true"`,
			`{{- end }}`,
			`{{- with $.Values.podLabels }}`,
			`{{- toYaml . | nindent `+strconv.Itoa(len(s.child()))+` }}`,
			`{{- end }}`)
	})
	pod, _ := pt["spec"].(map[string]any)
	for key, value := range map[string]string{
		"imagePullSecrets":  "$.Values.imagePullSecrets",
		"nodeSelector":      "$.Values.nodeSelector",
		"tolerations":       "$.Values.tolerations",
		"priorityClassName": "$.Values.priorityClassName",
	} {
		if _, ok := pod[key]; ok {
			return fmt.Errorf("chart: the Deployment sets %s, which the chart takes from values", key)
		}
		pod[key] = t.mark(func(s slot) ([]string, error) {
			return []string{
				"{{- with " + value + " }}",
				s.prefix() + "{{- toYaml . | nindent " + strconv.Itoa(len(s.child())) + " }}",
				"{{- end }}",
			}, nil
		})
		if key == "priorityClassName" {
			pod[key] = t.mark(func(s slot) ([]string, error) {
				return gated(value, []string{s.prefix() + "{{ " + value + " }}"}), nil
			})
		}
	}
	containers, _ := pod["containers"].([]any)
	baseContainers, _, _ := unstructured.NestedSlice(base.obj.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 || len(baseContainers) != 1 {
		return fmt.Errorf("chart: the Deployment has %d containers, its base %d: the chart knows one", len(containers), len(baseContainers))
	}
	c, _ := containers[0].(map[string]any)
	bc, _ := baseContainers[0].(map[string]any)
	g.defaults.Image, _ = c["image"].(string)
	g.defaults.PullPolicy, _ = c["imagePullPolicy"].(string)
	g.defaults.Resources, _ = c["resources"].(map[string]any)
	if g.defaults.Image == "" || g.defaults.PullPolicy == "" || g.defaults.Resources == nil {
		return fmt.Errorf("chart: the operator's container lacks an image, imagePullPolicy or resources")
	}
	c["image"] = t.mark(inline(`{{ include "armature.image" $ | quote }}`))
	c["imagePullPolicy"] = t.mark(inline(`{{ $.Values.image.pullPolicy }}`))
	c["resources"] = t.mark(func(s slot) ([]string, error) {
		return []string{strings.TrimSuffix(s.prefix(), " "), "{{- toYaml $.Values.resources | nindent " + strconv.Itoa(len(s.child())) + " }}"}, nil
	})
	args, _ := c["args"].([]any)
	baseArgs, _ := bc["args"].([]any)
	c["args"] = t.mark(g.args(t, args, baseArgs))
	ports, _ := c["ports"].([]any)
	basePorts, _ := bc["ports"].([]any)
	c["ports"] = t.mark(diffList(t, ports, basePorts, nil, nil))
	envFrom, _ := c["envFrom"].([]any)
	baseEnvFrom, _ := bc["envFrom"].([]any)
	c["envFrom"] = t.mark(diffList(t, envFrom, rewrite(t, baseEnvFrom, g.renamed).([]any), nil, []string{
		`{{- with $.Values.azure.credentialsSecret }}`,
		`$INDENT- secretRef:`,
		`$INDENT    name: {{ . }}`,
		`{{- end }}`,
	}))
	return nil
}

// args is the fill of the operator's arguments: config/default's, those
// of the webhook gated on it, --leader-elect on leader election,
// --metrics-bind-address 0 without metrics; then --metrics-secure=false
// when metrics are not secure, and the value extraArgs.
func (g *chartGen) args(t *tmpl, args, base []any) fill {
	return diffList(t, args, base, func(item any) (any, string) {
		s, _ := item.(string)
		switch {
		case s == leaderElectFlag:
			return item, leaderGate
		case strings.HasPrefix(s, metricsFlag):
			return t.mark(inline(metricsFlag + "{{ if $.Values.metrics.enabled }}" + strings.TrimPrefix(s, metricsFlag) + "{{ else }}0{{ end }}")), ""
		}
		return item, ""
	}, []string{
		`{{- if not $.Values.metrics.secure }}`,
		`$INDENT- --metrics-secure=false`,
		`{{- end }}`,
		`{{- range $.Values.extraArgs }}`,
		`$INDENT- {{ . | quote }}`,
		`{{- end }}`,
	})
}

// diffList is the fill of a list of config/default: each item, gated on
// the webhook when base lacks it, passed through each (which may replace
// it and add a gate), then the extra lines ($INDENT is the items'
// indentation).
func diffList(t *tmpl, items, base []any, each func(any) (any, string), extra []string) fill {
	return func(s slot) ([]string, error) {
		for _, b := range base {
			if !slices.ContainsFunc(items, func(it any) bool { return reflect.DeepEqual(it, b) }) {
				return nil, fmt.Errorf("chart: %s%v is in config/default's base but not in config/default", s.prefix(), b)
			}
		}
		out := []string{strings.TrimSuffix(s.prefix(), " ")}
		for _, it := range items {
			var conds []string
			if !slices.ContainsFunc(base, func(b any) bool { return reflect.DeepEqual(it, b) }) {
				conds = append(conds, webhookGate)
			}
			if each != nil {
				var cond string
				if it, cond = each(it); cond != "" {
					conds = append(conds, cond)
				}
			}
			lines, err := t.lines(it, s.Indent, true)
			if err != nil {
				return nil, err
			}
			cond := strings.Join(conds, " ")
			if len(conds) > 1 {
				cond = "and (" + strings.Join(conds, ") (") + ")"
			}
			out = append(out, gated(cond, lines)...)
		}
		for _, e := range extra {
			out = append(out, strings.ReplaceAll(e, "$INDENT", s.Indent))
		}
		return out, nil
	}
}

// stringAt returns the string at path of obj.
func stringAt(obj map[string]any, path ...string) string {
	s, _, _ := unstructured.NestedString(obj, path...)
	return s
}
