package manifests

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/hack/manifests/render"
	"github.com/armature-dev/armature/webhook"
)

// crdFiles counts the CRD files under a rendered config/crd.
func crdFiles(t *testing.T, config string) int {
	t.Helper()
	n := 0
	for p := range tree(t, filepath.Join(config, "crd")) {
		if strings.Count(p, "/") == 1 && !strings.HasSuffix(p, "/kustomization.yaml") {
			n++
		}
	}
	return n
}

// operatorContainer returns the Deployment's operator container.
func operatorContainer(t *testing.T, d *unstructured.Unstructured) corev1.Container {
	t.Helper()
	var dep struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(d.Object, &dep); err != nil {
		t.Fatal(err)
	}
	for _, c := range dep.Spec.Template.Spec.Containers {
		if c.Name == "operator" {
			return c
		}
	}
	t.Fatalf("Deployment %s has no container named operator", d.GetName())
	return corev1.Container{}
}

// podSpec returns the Deployment's pod template.
func podTemplate(t *testing.T, d *unstructured.Unstructured) corev1.PodTemplateSpec {
	t.Helper()
	m, _, _ := unstructured.NestedMap(d.Object, "spec", "template")
	var tmpl corev1.PodTemplateSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &tmpl); err != nil {
		t.Fatal(err)
	}
	return tmpl
}

func TestDefault(t *testing.T) {
	objs := build(t, filepath.Join(configDir(), "default"))
	res := apply(t, objs, "")
	want := map[string]int{
		"CustomResourceDefinition": crdFiles(t, configDir()),
		"Namespace":                1, "ServiceAccount": 1, "ConfigMap": 1, "Deployment": 1,
		// The operator's, the certificate management's, the CRD reader's
		// (armature-crd-reader, bound) and the metrics endpoint's
		// (armature-metrics-auth, bound; armature-metrics-reader, for
		// scrapers to be bound to); leader election's, the certificate's
		// and the state key's Roles.
		"ClusterRole": 5, "ClusterRoleBinding": 4, "Role": 3, "RoleBinding": 3,
		// Metrics and webhook; the webhook configurations; the certificate.
		"Service": 2, "ValidatingWebhookConfiguration": 1, "MutatingWebhookConfiguration": 1, "Secret": 1,
	}
	if diff := cmp.Diff(want, res.kinds); diff != "" {
		t.Errorf("objects of config/default by kind: -want +got:\n%s", diff)
	}
	if res.created+res.dryRun != len(objs) {
		t.Errorf("applied %d + %d of %d objects", res.created, res.dryRun, len(objs))
	}
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" && ns != render.Namespace {
			t.Errorf("%s %s is in namespace %q, want %q", o.GetKind(), o.GetName(), ns, render.Namespace)
		}
	}
	dep := one(t, objs, "Deployment", "armature-operator")
	c := operatorContainer(t, dep)
	if !slices.Contains(c.Args, "--leader-elect") {
		t.Errorf("the operator runs without --leader-elect: %q", c.Args)
	}
	if replicas, _, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas"); replicas < 2 {
		t.Errorf("replicas = %d: leader election wants a standby", replicas)
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("container securityContext = %+v: want a read-only root filesystem and no privilege escalation", sc)
	}
	pod := podTemplate(t, dep).Spec
	if psc := pod.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 65532 {
		t.Errorf("pod securityContext = %+v: want non-root user 65532", psc)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources = %+v: want CPU and memory requests and a memory limit", c.Resources)
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" ||
		c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("probes: liveness %+v, readiness %+v: want /healthz and /readyz", c.LivenessProbe, c.ReadinessProbe)
	}
	cm := one(t, objs, "ConfigMap", "")
	if len(c.EnvFrom) != 1 || c.EnvFrom[0].ConfigMapRef == nil || c.EnvFrom[0].ConfigMapRef.Name != cm.GetName() {
		t.Errorf("envFrom = %+v, want the ConfigMap %s", c.EnvFrom, cm.GetName())
	}
	crb := one(t, objs, "ClusterRoleBinding", render.RoleName)
	wantSubject := []any{map[string]any{"kind": "ServiceAccount", "name": pod.ServiceAccountName, "namespace": render.Namespace}}
	if subj, _, _ := unstructured.NestedSlice(crb.Object, "subjects"); !cmp.Equal(wantSubject, subj) {
		t.Errorf("ClusterRoleBinding subjects = %v, want %v", subj, wantSubject)
	}
	// The webhooks are served, with the certificate the operator manages
	// in the Secret the build ships (TestDefaultInstallServesWebhooks runs
	// it), and every CRD with several versions converts through them.
	configs := checkWebhookServing(t, objs, wantRules(t, ""))
	secret := one(t, objs, "Secret", render.CertificateName)
	if !slices.Contains(c.Args, "--webhook-cert-secret="+secret.GetName()) {
		t.Errorf("the operator's args %q do not manage the certificate in the Secret %s", c.Args, secret.GetName())
	}
	if data, _, _ := unstructured.NestedMap(secret.Object, "data"); len(data) != 0 || secret.Object["type"] != "Opaque" {
		t.Errorf("the Secret ships type %v with %d keys: want an empty Opaque Secret (the operator fills it; re-applying must not reset it)", secret.Object["type"], len(data))
	}
	for _, w := range configs {
		if len(w.Metadata.Annotations) != 0 || len(w.Webhooks[0].ClientConfig.CABundle) != 0 {
			t.Errorf("%s ships a caBundle or annotations %v: the operator injects the CA", w.Metadata.Name, w.Metadata.Annotations)
		}
	}
	converting := 0
	for _, crd := range find(objs, "CustomResourceDefinition", "") {
		if s, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy"); s == "Webhook" {
			converting++
			if crd.GetLabels()["armature.dev/conversion"] != "webhook" {
				t.Errorf("CRD %s converts through the operator without the label the operator finds it by", crd.GetName())
			}
		}
	}
	if want := multiVersionCRDs(t, objs); converting != want || want == 0 {
		t.Errorf("%d CRDs of config/default convert through the operator, %d have several versions", converting, want)
	}
	t.Run("PodSecurityRestricted", func(t *testing.T) { podSecurity(t, dep) })
}

// podSecurity creates (dry-run) a Pod of the Deployment's template in its
// namespace, which enforces Pod Security's restricted profile; a
// privileged Pod must be refused there, or the check proves nothing.
func podSecurity(t *testing.T, dep *unstructured.Unstructured) {
	ctx := context.Background()
	tmpl := podTemplate(t, dep)
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: tmpl.Spec.ServiceAccountName, Namespace: dep.GetNamespace()}}
	if err := k8s.Create(ctx, sa); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "operator-", Namespace: dep.GetNamespace(), Labels: tmpl.Labels}, Spec: tmpl.Spec}
	before := warnings.count()
	if err := k8s.Create(ctx, pod, client.DryRunAll); err != nil {
		t.Errorf("the operator's pod is refused in %s: %v", dep.GetNamespace(), err)
	}
	if w := warnings.since(before); len(w) > 0 {
		t.Errorf("the operator's pod draws warnings: %q", w)
	}
	bad := pod.DeepCopy()
	bad.Spec.SecurityContext = nil
	bad.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptrTo(true)}
	if err := k8s.Create(ctx, bad, client.DryRunAll); err == nil {
		t.Errorf("a privileged pod is admitted in %s: Pod Security is not enforced, the check above proves nothing", dep.GetNamespace())
	}
}

// webhookEntry is one webhook of a built configuration, as tested here.
type webhookEntry struct {
	Name         string `json:"name"`
	ClientConfig struct {
		CABundle []byte `json:"caBundle"`
		Service  struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
			Path      string `json:"path"`
			Port      int32  `json:"port"`
		} `json:"service"`
	} `json:"clientConfig"`
	Rules []map[string]any `json:"rules"`
}

// webhookConfig is the part of a built webhook configuration tested here.
type webhookConfig struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Webhooks []webhookEntry    `json:"webhooks"`
}

func decodeWebhook(t *testing.T, o *unstructured.Unstructured) webhookConfig {
	t.Helper()
	var w webhookConfig
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// actionCRD is the Action kind's CRD.
const actionCRD = "actions.actions.azure.armature.dev"

// checkWebhookServing checks that the built webhook configurations call
// the Service the build declares, at package webhook's paths, for exactly
// the served kinds (and the Action kind when its CRD is in the build), and
// that the Service reaches the operator's webhook port, which the operator
// serves.
func checkWebhookServing(t *testing.T, objs []*unstructured.Unstructured, served []webhookRule) []webhookConfig {
	t.Helper()
	dep := one(t, objs, "Deployment", "armature-operator")
	c := operatorContainer(t, dep)
	for _, a := range []string{"--webhook", "--webhook-port=9443"} {
		if !slices.Contains(c.Args, a) {
			t.Errorf("the operator's args %q lack %s", c.Args, a)
		}
	}
	var webhookPort int32
	for _, p := range c.Ports {
		if p.Name == "webhook" {
			webhookPort = p.ContainerPort
		}
	}
	type entry struct {
		name, path string
		rules      []webhookRule
	}
	validating := []entry{{webhook.ValidatingWebhookName, webhook.ValidatePath, served}}
	if len(find(objs, "CustomResourceDefinition", actionCRD)) == 1 {
		ar := webhook.ActionValidatingWebhook().Rules[0]
		validating = append(validating, entry{webhook.ActionWebhookName, webhook.ActionValidatePath, []webhookRule{{
			ar.APIGroups[0], ar.APIVersions[0], []string{"CREATE", "UPDATE"}, []string{"actions"},
		}}})
	}
	var out []webhookConfig
	for _, k := range []struct {
		kind, name string
		entries    []entry
	}{
		{"ValidatingWebhookConfiguration", webhook.ValidatingConfigurationName, validating},
		{"MutatingWebhookConfiguration", webhook.MutatingConfigurationName, []entry{{webhook.DefaultingWebhookName, webhook.DefaultPath, served}}},
	} {
		w := decodeWebhook(t, one(t, objs, k.kind, k.name))
		out = append(out, w)
		var names []string
		for _, e := range w.Webhooks {
			names = append(names, e.Name)
		}
		var want []string
		for _, e := range k.entries {
			want = append(want, e.name)
		}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("%s webhooks: -want +got:\n%s", k.name, diff)
			continue
		}
		for i, e := range k.entries {
			got := w.Webhooks[i]
			ref := got.ClientConfig.Service
			if ref.Path != e.path {
				t.Errorf("%s calls path %q, the operator serves %q", e.name, ref.Path, e.path)
			}
			checkService(t, objs, dep, e.name, ref.Namespace, ref.Name, ref.Port, webhookPort)
			if diff := cmp.Diff(e.rules, decodeRules(t, got)); diff != "" {
				t.Errorf("%s rules: -want (package webhook's, for the served kinds) +got:\n%s", e.name, diff)
			}
		}
	}
	return out
}

// checkService checks that a webhook's Service is in the build and reaches
// the operator's webhook port.
func checkService(t *testing.T, objs []*unstructured.Unstructured, dep *unstructured.Unstructured, hook, ns, name string, port, webhookPort int32) {
	t.Helper()
	svc := one(t, objs, "Service", name)
	if svc.GetNamespace() != ns {
		t.Errorf("%s calls Service %s/%s, the Service is in %s", hook, ns, name, svc.GetNamespace())
	}
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	reached := false
	for _, p := range ports {
		pm := p.(map[string]any)
		if pm["port"] == int64(port) && (pm["targetPort"] == int64(webhookPort) || pm["targetPort"] == "webhook") {
			reached = true
		}
	}
	if !reached {
		t.Errorf("Service %s port %d does not reach the operator's webhook port %d: %v", name, port, webhookPort, ports)
	}
	selector, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "selector")
	labels := podTemplate(t, dep).Labels
	for key, v := range selector {
		if labels[key] != v {
			t.Errorf("Service %s selects %s=%s, the operator's pods have %q", name, key, v, labels[key])
		}
	}
}

// webhookRule is a rule in a comparable form.
type webhookRule struct {
	Group, Version string
	Operations     []string
	Resources      []string
}

func decodeRules(t *testing.T, w webhookEntry) []webhookRule {
	t.Helper()
	var out []webhookRule
	for _, r := range w.Rules {
		var rule struct {
			APIGroups   []string `json:"apiGroups"`
			APIVersions []string `json:"apiVersions"`
			Operations  []string `json:"operations"`
			Resources   []string `json:"resources"`
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(r, &rule); err != nil {
			t.Fatal(err)
		}
		for _, g := range rule.APIGroups {
			for _, v := range rule.APIVersions {
				out = append(out, webhookRule{g, v, rule.Operations, rule.Resources})
			}
		}
	}
	return out
}

// wantRules is package webhook's rules for the descriptors that kinds
// selects.
func wantRules(t *testing.T, kinds string) []webhookRule {
	t.Helper()
	ds, err := selected(kinds)
	if err != nil {
		t.Fatal(err)
	}
	var out []webhookRule
	for _, r := range webhook.Rules(ds) {
		var ops []string
		for _, op := range r.Operations {
			ops = append(ops, string(op))
		}
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				out = append(out, webhookRule{g, v, ops, r.Resources})
			}
		}
	}
	return out
}

func TestCertManager(t *testing.T) {
	objs := build(t, filepath.Join(configDir(), "certmanager"))
	apply(t, objs, "")
	configs := checkWebhookServing(t, objs, wantRules(t, ""))
	cert := one(t, objs, "Certificate", render.CertificateName)
	for _, w := range configs {
		if got, want := w.Metadata.Annotations["cert-manager.io/inject-ca-from"], cert.GetNamespace()+"/"+cert.GetName(); got != want {
			t.Errorf("%s: cert-manager.io/inject-ca-from = %q, want %q", w.Metadata.Name, got, want)
		}
		ref := w.Webhooks[0].ClientConfig.Service
		dns, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
		if !slices.Contains(dns, ref.Name+"."+ref.Namespace+".svc") {
			t.Errorf("the Certificate's dnsNames %q do not name the Service %s.%s.svc", dns, ref.Name, ref.Namespace)
		}
	}
	converting := 0
	for _, crd := range find(objs, "CustomResourceDefinition", "") {
		strategy, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy")
		want := ""
		if strategy == "Webhook" {
			want = cert.GetNamespace() + "/" + cert.GetName()
			converting++
		}
		if got := crd.GetAnnotations()["cert-manager.io/inject-ca-from"]; got != want {
			t.Errorf("CRD %s (conversion %q): cert-manager.io/inject-ca-from = %q, want %q", crd.GetName(), strategy, got, want)
		}
	}
	if converting != multiVersionCRDs(t, objs) {
		t.Errorf("%d CRDs convert through the operator, %d have several versions", converting, multiVersionCRDs(t, objs))
	}
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	dep := one(t, objs, "Deployment", "armature-operator")
	if !mountsSecret(t, dep, secretName) {
		t.Errorf("the operator does not mount the Certificate's Secret %s at --cert-dir", secretName)
	}
	// cert-manager owns the certificate: the operator's own management is
	// not in this build.
	if args := operatorContainer(t, dep).Args; slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--webhook-cert-secret") }) {
		t.Errorf("the operator's args %q manage the certificate that cert-manager issues", args)
	}
	if n := len(find(objs, "Secret", "")) + len(find(objs, "Role", render.CertsRoleName)); n != 0 {
		t.Errorf("config/certmanager ships the operator-managed certificate's Secret or RBAC (%d objects)", n)
	}
	issuer, _, _ := unstructured.NestedString(cert.Object, "spec", "issuerRef", "name")
	one(t, objs, "Issuer", issuer)
}

// multiVersionCRDs counts the built CRDs with more than one version.
func multiVersionCRDs(t *testing.T, objs []*unstructured.Unstructured) int {
	t.Helper()
	n := 0
	for _, crd := range find(objs, "CustomResourceDefinition", "") {
		if versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions"); len(versions) > 1 {
			n++
		}
	}
	return n
}

// mountsSecret tells whether the operator mounts the Secret at the folder
// its --cert-dir names.
func mountsSecret(t *testing.T, dep *unstructured.Unstructured, secret string) bool {
	t.Helper()
	c := operatorContainer(t, dep)
	dir := ""
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--cert-dir="); ok {
			dir = v
		}
	}
	for _, v := range podTemplate(t, dep).Spec.Volumes {
		if v.Secret == nil || v.Secret.SecretName != secret {
			continue
		}
		for _, m := range c.VolumeMounts {
			if m.Name == v.Name && m.MountPath == dir && dir != "" {
				return true
			}
		}
	}
	return false
}

func TestSamples(t *testing.T) {
	apply(t, build(t, filepath.Join(configDir(), "crd")), "")
	ensureNamespace(t, "team-a")
	ensureNamespace(t, "samples")
	objs := build(t, filepath.Join(configDir(), "samples"))
	res := apply(t, objs, "samples")
	files := 0
	for p := range tree(t, filepath.Join(configDir(), "samples")) {
		if p != "kustomization.yaml" {
			files++
		}
	}
	if res.dryRun != len(objs) || len(objs) < files {
		t.Errorf("dry-ran %d of %d samples from %d files", res.dryRun, len(objs), files)
	}
}

func TestShardedExample(t *testing.T) {
	for _, ns := range []string{"team-a", "team-b", "team-c"} {
		ensureNamespace(t, ns)
	}
	objs := build(t, filepath.Join(configDir(), "examples", "sharded"))
	apply(t, objs, "")
	// Only the metrics endpoint's TokenReviews and SubjectAccessReviews
	// and the CRD reader's list and watch of CRDs, which have no
	// namespace, are bound cluster-wide.
	crbs := find(objs, "ClusterRoleBinding", "")
	for _, crb := range crbs {
		if role, _, _ := unstructured.NestedString(crb.Object, "roleRef", "name"); !strings.HasPrefix(role, "armature-metrics-auth") && !strings.HasPrefix(role, "armature-crd-reader") {
			t.Errorf("a shard is bound cluster-wide: ClusterRoleBinding %s to %s", crb.GetName(), role)
		}
	}
	if len(crbs) != 4 {
		t.Errorf("%d ClusterRoleBindings, want one armature-metrics-auth and one armature-crd-reader per shard", len(crbs))
	}
	want := map[string]string{"armature-shard-a": "team-a,team-b", "armature-shard-b": "team-c"}
	for _, dep := range find(objs, "Deployment", "") {
		ns := dep.GetNamespace()
		c := operatorContainer(t, dep)
		cm := one(t, objs, "ConfigMap", c.EnvFrom[0].ConfigMapRef.Name)
		if cm.GetNamespace() != ns {
			t.Errorf("%s reads ConfigMap %s of namespace %s", dep.GetName(), cm.GetName(), cm.GetNamespace())
		}
		got, _, _ := unstructured.NestedString(cm.Object, "data", "ARMATURE_WATCH_NAMESPACES")
		if got != want[ns] {
			t.Errorf("%s/%s watches %q, want %q", ns, dep.GetName(), got, want[ns])
		}
		delete(want, ns)
		sa := podTemplate(t, dep).Spec.ServiceAccountName
		one(t, objs, "ServiceAccount", sa)
		granted := map[string]bool{}
		for _, rb := range find(objs, "RoleBinding", "") {
			subj, _, _ := unstructured.NestedSlice(rb.Object, "subjects")
			s := subj[0].(map[string]any)
			if s["name"] != sa || s["namespace"] != ns {
				continue
			}
			role, _, _ := unstructured.NestedString(rb.Object, "roleRef", "name")
			kind, _, _ := unstructured.NestedString(rb.Object, "roleRef", "kind")
			one(t, objs, kind, role)
			granted[rb.GetNamespace()] = true
		}
		for _, w := range strings.Split(got, ",") {
			if !granted[w] {
				t.Errorf("%s watches %s but is granted nothing there", dep.GetName(), w)
			}
		}
		if !granted[ns] {
			t.Errorf("%s cannot elect a leader in its own namespace %s", dep.GetName(), ns)
		}
	}
	if len(want) != 0 {
		t.Errorf("no shard in %v", want)
	}
}
