package render

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"
)

// values renders the chart's values.yaml: every value, documented, its
// default what config/default installs (image, replicas, resources and the
// operator's environment come from its build).
func values(d chartDefaults) ([]byte, error) {
	repo, tag := d.Image, ""
	if i := strings.LastIndex(d.Image, ":"); i > strings.LastIndex(d.Image, "/") {
		repo, tag = d.Image[:i], d.Image[i+1:]
	}
	if strings.Contains(d.Image, "@") || tag == "" {
		return nil, fmt.Errorf("chart: config/default's image %q: want repository:tag", d.Image)
	}
	res, err := yaml.Marshal(d.Resources)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(d.Env))
	for k := range d.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var env strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&env, "  %s: %s\n", k, strconv.Quote(d.Env[k]))
	}
	if env.Len() == 0 {
		env.WriteString("  {}\n")
	}
	var b bytes.Buffer
	err = valuesTemplate.Execute(&b, map[string]any{
		"Header": Header, "Repository": repo, "Tag": tag, "PullPolicy": d.PullPolicy,
		"Replicas": d.Replicas, "Resources": indent("  ", string(res)), "Env": env.String(),
		"KindsEnv": kindsEnv, "CRDChart": CRDChart,
	})
	return b.Bytes(), err
}

// indent prefixes every line of s.
func indent(prefix, s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix) + "\n"
}

var valuesTemplate = template.Must(template.New("values").Parse(`{{.Header}}# The values of the armature chart (docs/helm.md). With these defaults it
# installs what config/default does (kubectl apply --server-side -k
# config/default): every CRD of the chart, the operator (two replicas,
# leader election) serving its admission and conversion webhooks with a
# certificate it manages itself, least-privilege RBAC, the metrics endpoint.
# Defaults marked (config/) come from config/default's build: change them
# there, then run make manifests.

# groups chooses the API groups whose CRDs the chart installs, by name
# (storage.azure.armature.dev) or by its first label (storage). The
# operator's ClusterRole, the webhook configurations and the kinds the
# operator runs (--kinds, env {{.KindsEnv}}) follow. With kinds, a kind is
# chosen when either chooses it; both empty: every CRD of the chart.
# A name that matches no group is an error.
groups: []
# kinds chooses kinds by the operator's --kinds patterns over
# <group>/<Kind> (* and ? only), e.g. storage.azure.armature.dev/StorageAccount*.
# A pattern that matches no CRD of the chart is an error.
kinds: []
# generatedGroups are API groups of the generated tier, whose CRDs are too
# many for a Helm release and are installed outside the chart
# (kubectl apply --server-side -k config/crd/generated/<group>, docs/helm.md).
# The operator's ClusterRole and the webhook configurations cover every
# resource of these groups, and the operator runs their kinds.
generatedGroups: []

crds:
  # keep annotates the CRDs helm.sh/resource-policy: keep, so that helm
  # uninstall (or a group no longer chosen) leaves the CRDs and the custom
  # resources — and their Azure resources — in place. Delete a CRD with
  # kubectl when you mean it.
  keep: true

image:
  # (config/) The operator's image (docs/deploy.md, The image).
  repository: {{.Repository}}
  tag: {{.Tag}}
  # digest, when set, is used instead of tag (sha256:…).
  digest: ""
  # (config/)
  pullPolicy: {{.PullPolicy}}
imagePullSecrets: []

# (config/) Replicas of the operator: one leads (reconciles, manages the
# webhook certificate), every replica serves the webhook.
replicas: {{.Replicas}}

leaderElection:
  # enabled runs --leader-elect and its Role. Turn it off only with one
  # replica.
  enabled: true

# (config/) The operator container's resources; GOMEMLIMIT follows the
# memory request.
resources:
{{.Resources}}
webhook:
  # enabled serves the admission webhook and the CRD conversion webhook
  # from the operator (--webhook), with the serving certificate the
  # operator issues, injects and rotates itself (--webhook-cert-secret,
  # the Secret armature-webhook-cert). Off: no admission checks, and kinds
  # with several versions convert with strategy None (docs/deploy.md).
  enabled: true

metrics:
  # enabled serves Prometheus metrics on port 8443 and the Service
  # armature-operator-metrics; off: --metrics-bind-address=0.
  enabled: true
  # secure serves them over HTTPS to callers allowed get on /metrics
  # (bind the ClusterRole armature-metrics-reader to your scraper);
  # false: plain HTTP to anyone (--metrics-secure=false).
  secure: true

# (config/) The operator's environment (config/manager/operator.env; every
# flag of the operator has one: ARMATURE_WATCH_NAMESPACES,
# ARMATURE_DEFAULT_CREDENTIAL_NAMESPACES, ARMATURE_CLOUD, …; see
# docs/deploy.md). {{.KindsEnv}} comes from groups and kinds.
env:
{{.Env}}
azure:
  workloadIdentity:
    # clientID of a managed identity: the ServiceAccount is annotated
    # azure.workload.identity/client-id and the pod labelled
    # azure.workload.identity/use=true (AKS workload identity).
    clientID: ""
  # credentialsSecret names a Secret in the release's namespace whose keys
  # become the operator's environment: AZURE_TENANT_ID, AZURE_CLIENT_ID,
  # AZURE_CLIENT_SECRET of a service principal. The operator's identity
  # serves no namespace until env.ARMATURE_DEFAULT_CREDENTIAL_NAMESPACES
  # says which (docs/credentials.md).
  credentialsSecret: ""

serviceAccount:
  annotations: {}

podAnnotations: {}
podLabels: {}
nodeSelector: {}
tolerations: []
priorityClassName: ""
# extraArgs are added to the operator's arguments (operator Config.BindFlags).
extraArgs: []
`))
