package manifests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/hack/manifests/render"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/webhook"
)

// operatorUser is the operator's ServiceAccount as the apiserver knows it.
var operatorUser = authorizationv1.SubjectAccessReviewSpec{
	User:   "system:serviceaccount:" + render.Namespace + ":armature-operator",
	Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + render.Namespace, "system:authenticated"},
}

// installRBAC really creates config/default's namespace, ServiceAccount,
// roles and bindings, and its CRDs (converting with None), and returns the
// built objects.
func installRBAC(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	objs := build(t, filepath.Join(configDir(), "default"))
	ctx := context.Background()
	first := func(o *unstructured.Unstructured) bool { return o.GetKind() == "Namespace" }
	ordered := append(slices.Clone(slices.DeleteFunc(slices.Clone(objs), func(o *unstructured.Unstructured) bool { return !first(o) })),
		slices.DeleteFunc(slices.Clone(objs), first)...)
	for _, o := range ordered {
		switch o.GetKind() {
		case "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
				t.Fatalf("apply %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		case "CustomResourceDefinition":
			// Without the conversion webhook: no operator serves it here
			// (TestDefaultInstallServesWebhooks runs one).
			crd := o.DeepCopy()
			unstructured.RemoveNestedField(crd.Object, "spec", "conversion")
			if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(crd), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
				t.Fatalf("apply %s %s: %v", o.GetKind(), o.GetName(), err)
			}
			if err := waitEstablished(ctx, o.GetName()); err != nil {
				t.Fatal(err)
			}
		}
	}
	return objs
}

// can asks the apiserver whether the operator may do verb on
// group/resource in ns.
func can(t *testing.T, verb, group, resource, ns string) bool {
	t.Helper()
	return canNamed(t, verb, group, resource, ns, "")
}

// canNamed is can for the object named name ("" for any: list, create).
func canNamed(t *testing.T, verb, group, resource, ns, name string) bool {
	t.Helper()
	sub := ""
	if r, s, ok := strings.Cut(resource, "/"); ok {
		resource, sub = r, s
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: operatorUser}
	sar.Spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Group: group, Resource: resource, Subresource: sub, Name: name}
	if err := k8s.Create(context.Background(), sar); err != nil {
		t.Fatal(err)
	}
	return sar.Status.Allowed
}

// TestOperatorRole checks the installed role against what the operator
// does (allowed) and what it never does (denied).
func TestOperatorRole(t *testing.T) {
	objs := installRBAC(t)
	const team = "team-x"
	type access struct{ verb, group, resource, ns string }
	var allowed, denied []access
	actions := false
	for _, crd := range find(objs, "CustomResourceDefinition", "") {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
		actions = actions || group == "actions.azure.armature.dev"
		for _, v := range []string{"get", "list", "watch", "patch", "update"} {
			allowed = append(allowed, access{v, group, plural, team})
		}
		allowed = append(allowed, access{"patch", group, plural + "/status", team}, access{"update", group, plural + "/finalizers", team})
		denied = append(denied, access{"create", group, plural, team}, access{"delete", group, plural, team}, access{"deletecollection", group, plural, team})
	}
	if len(allowed) < 7*30 {
		t.Fatalf("config/default has %d CRDs: too few", len(allowed)/7)
	}
	for _, v := range []string{"get", "list", "watch"} {
		allowed = append(allowed, access{v, "", "secrets", team})
	}
	allowed = append(allowed,
		access{"create", "", "events", team}, access{"patch", "", "events", team},
		access{"get", "coordination.k8s.io", "leases", render.Namespace},
		access{"create", "coordination.k8s.io", "leases", render.Namespace},
		access{"update", "coordination.k8s.io", "leases", render.Namespace},
		// The metrics endpoint authenticates and authorizes its callers.
		access{"create", "authentication.k8s.io", "tokenreviews", ""},
		access{"create", "authorization.k8s.io", "subjectaccessreviews", ""},
	)
	denied = append(denied,
		access{"delete", "", "secrets", team},
		access{"create", "coordination.k8s.io", "leases", team},
		access{"delete", "coordination.k8s.io", "leases", render.Namespace},
		access{"list", "", "pods", team},
		access{"create", "apps", "deployments", render.Namespace},
		access{"create", "apiextensions.k8s.io", "customresourcedefinitions", ""},
		access{"create", "rbac.authorization.k8s.io", "clusterrolebindings", ""},
		access{"patch", "admissionregistration.k8s.io", "validatingwebhookconfigurations", ""},
		access{"get", "", "serviceaccounts/token", render.Namespace},
		access{"create", "", "serviceaccounts/token", render.Namespace},
		access{"get", "authentication.k8s.io", "tokenreviews", ""},
		access{"list", "authorization.k8s.io", "subjectaccessreviews", ""},
	)
	// Outputs (spec.operatorSpec) are server-side applied into ConfigMaps
	// and Secrets of the object's namespace (create, patch, and get: only
	// into those outputs made).
	// valuesFrom reads ConfigMap keys (get).
	for _, r := range []string{"secrets", "configmaps"} {
		allowed = append(allowed, access{"create", "", r, team}, access{"patch", "", r, team}, access{"get", "", r, team})
	}
	// Only the Action kind updates Secrets and lists ConfigMaps.
	for _, a := range []access{{"update", "", "secrets", team}, {"list", "", "configmaps", team}} {
		if actions {
			allowed = append(allowed, a)
		} else {
			denied = append(denied, a)
		}
	}
	certificateRole(t, objs, actions)
	// The state key: read by name, created at the first start, in the
	// operator's namespace only.
	if !canNamed(t, "get", "", "secrets", render.Namespace, operator.DefaultStateKeySecret) || !can(t, "create", "", "secrets", render.Namespace) {
		t.Errorf("the operator may not read or create its state key Secret %s/%s", render.Namespace, operator.DefaultStateKeySecret)
	}
	for _, a := range allowed {
		if !can(t, a.verb, a.group, a.resource, a.ns) {
			t.Errorf("the operator may not %s %s.%s in %q", a.verb, a.resource, a.group, a.ns)
		}
	}
	for _, a := range denied {
		if can(t, a.verb, a.group, a.resource, a.ns) {
			t.Errorf("the operator may %s %s.%s in %q: more than it needs", a.verb, a.resource, a.group, a.ns)
		}
	}
}

// certificateRole checks the rules of the operator-managed certificate
// (components/webhook-certs) by object name: its Secret, both webhook
// configurations and the CRDs with several versions may be read, watched
// and updated; other objects of those kinds may not, and nothing may be
// created or deleted. With the Action CRD installed the operator writes
// Secrets anywhere anyway (action results), so the denials on other
// Secrets are checked only without it.
func certificateRole(t *testing.T, objs []*unstructured.Unstructured, actions bool) {
	t.Helper()
	type named struct{ group, resource, ns, name string }
	mine := []named{
		{"", "secrets", render.Namespace, render.CertificateName},
		{"admissionregistration.k8s.io", "validatingwebhookconfigurations", "", webhook.ValidatingConfigurationName},
		{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "", webhook.MutatingConfigurationName},
	}
	others := []named{
		{"", "secrets", render.Namespace, "another-secret"},
		{"admissionregistration.k8s.io", "validatingwebhookconfigurations", "", "someone-elses"},
		{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "", "someone-elses"},
		{"apiextensions.k8s.io", "customresourcedefinitions", "", "issuers.cert-manager.io"},
	}
	for _, crd := range find(objs, "CustomResourceDefinition", "") {
		n := named{"apiextensions.k8s.io", "customresourcedefinitions", "", crd.GetName()}
		if versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions"); len(versions) > 1 {
			mine = append(mine, n)
		} else {
			others = append(others, n)
		}
	}
	if len(mine) < 4 {
		t.Fatal("config/default has no CRD with several versions: the check covers too little")
	}
	for _, o := range mine {
		verbs := []string{"get", "list", "watch", "update"}
		if o.resource == "customresourcedefinitions" {
			verbs = []string{"get", "update"}
		}
		for _, v := range verbs {
			if !canNamed(t, v, o.group, o.resource, o.ns, o.name) {
				t.Errorf("the operator may not %s %s %s: it manages its certificate or caBundle", v, o.resource, o.name)
			}
		}
		// patch: every Secret may be patched (outputs are applied into the
		// object's namespace; the operator's own Secrets are in its own).
		for _, v := range []string{"delete", "patch"} {
			if v == "patch" && o.resource == "secrets" {
				continue
			}
			if canNamed(t, v, o.group, o.resource, o.ns, o.name) {
				t.Errorf("the operator may %s %s %s: more than it needs", v, o.resource, o.name)
			}
		}
	}
	for _, o := range others {
		if actions && o.resource == "secrets" {
			continue
		}
		if canNamed(t, "update", o.group, o.resource, o.ns, o.name) {
			t.Errorf("the operator may update %s %s: not its own", o.resource, o.name)
		}
	}
	// The labelled CRDs are watched by metadata: list and watch of CRDs
	// cannot be limited by name. Nothing is created.
	for _, v := range []string{"list", "watch"} {
		if !can(t, v, "apiextensions.k8s.io", "customresourcedefinitions", "") {
			t.Errorf("the operator may not %s CRDs: it watches the converting ones", v)
		}
	}
	for _, o := range []named{{"", "secrets", render.Namespace, ""}, {"admissionregistration.k8s.io", "validatingwebhookconfigurations", "", ""}} {
		if actions && o.resource == "secrets" {
			continue
		}
		if canNamed(t, "create", o.group, o.resource, o.ns, "") {
			t.Errorf("the operator may create %s in %q", o.resource, o.ns)
		}
	}
}

// TestOperatorRunsUnderItsRole runs the operator (operator.Run, as
// cmd/operator) as its ServiceAccount, with only the RBAC of config/, over
// every installed kind and every namespace, against the ARM emulator: a
// ResourceGroup, a StorageAccount and a VirtualMachine whose admin password
// is a Secret reference become Ready, and the password reaches ARM; an
// Action writes its results to a Secret and a ConfigMap. A missing rule (a
// list, a status patch, a Secret read or write) leaves them not Ready.
func TestOperatorRunsUnderItsRole(t *testing.T) {
	installRBAC(t)
	// The emulator's journal redacts passwords: what reaches ARM is seen
	// on the way in.
	const password = "s3cret-Passw0rd!"
	emu, err := fakearm.New(apis.Descriptors(), fakearm.Options{LROPolls: 1, RetryAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	var sent atomic.Bool
	fa, err := fakearm.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/virtualMachines/") {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			if bytes.Contains(b, []byte(password)) {
				sent.Store(true)
			}
		}
		emu.ServeHTTP(w, r)
	}), fakearm.StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	asOperator := rest.CopyConfig(restCfg)
	asOperator.Impersonate = rest.ImpersonationConfig{UserName: operatorUser.User, Groups: operatorUser.Groups}
	const subscription = "00000000-0000-0000-0000-0000000000bb"
	cfg := operator.Config{
		Reconciler:  reconciler.Config{SubscriptionID: subscription, PollInterval: 50 * time.Millisecond, SyncPeriod: time.Hour},
		ARMEndpoint: fa.URL,
		ARMCAFile:   ca,
		ARMToken:    "t",
		MetricsAddr: "0",
		ProbeAddr:   "0",
		// The test namespaces have no credential Secret.
		DefaultCredentialNamespaces: []string{"*"},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- operator.Run(ctx, asOperator, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("operator.Run: %v", err)
		}
	})

	ns := "rbac-run"
	ensureNamespace(t, ns)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "vm-admin", Namespace: ns}, StringData: map[string]string{"password": password}}
	if err := k8s.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	rg := cr("resources.azure.armature.dev/v20240301", "ResourceGroup", ns, "rg", map[string]any{"location": "westeurope"})
	sa := cr("storage.azure.armature.dev/v20230501", "StorageAccount", ns, "rbacsa01", map[string]any{
		"owner": map[string]any{"name": "rg"}, "location": "westeurope", "kind": "StorageV2",
		"sku": map[string]any{"name": "Standard_LRS"},
	})
	vm := cr("compute.azure.armature.dev/v20240301", "VirtualMachine", ns, "vm", map[string]any{
		"owner": map[string]any{"name": "rg"}, "location": "westeurope",
		"properties": map[string]any{
			"hardwareProfile": map[string]any{"vmSize": "Standard_B1s"},
			"osProfile": map[string]any{
				"computerName": "vm", "adminUsername": "azureuser",
				"adminPassword": map[string]any{"name": secret.Name, "key": "password"},
			},
		},
	})
	for _, o := range []*unstructured.Unstructured{rg, sa, vm} {
		if err := k8s.Create(context.Background(), o); err != nil {
			t.Fatalf("create %s: %v", o.GetKind(), err)
		}
	}
	for _, o := range []*unstructured.Unstructured{rg, sa, vm} {
		waitReady(t, o)
	}
	// An Action writes its results to a Secret and a ConfigMap it owns: the
	// rules the Action CRD brings.
	action := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "actions.azure.armature.dev/v1alpha1", "kind": "Action",
		"metadata": map[string]any{"name": "rotate", "namespace": ns},
		"spec": map[string]any{
			"target": map[string]any{"kind": "StorageAccount", "name": sa.GetName()}, "action": "regenerateKey",
			"parameters":   map[string]any{"keyName": "key1"},
			"resultSecret": map[string]any{"name": "keys"}, "resultConfigMap": map[string]any{"name": "keys"},
		},
	}}
	if err := k8s.Create(context.Background(), action); err != nil {
		t.Fatalf("create Action: %v", err)
	}
	waitReady(t, action)
	for _, obj := range []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}} {
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "keys"}, obj); err != nil {
			t.Errorf("the Action's result %T: %v", obj, err)
		} else if owner := metav1.GetControllerOf(obj); owner == nil || owner.Name != action.GetName() {
			t.Errorf("the Action's result %T is not owned by it: %v", obj, owner)
		}
	}
	if !sent.Load() {
		t.Error("the VirtualMachine's PUT does not carry the password read from its Secret")
	}
}

// cr builds a custom resource.
func cr(apiVersion, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     spec,
	}}
}

// waitReady waits until the resource's Ready condition is True.
func waitReady(t *testing.T, o *unstructured.Unstructured) {
	t.Helper()
	last := ""
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(o.GroupVersionKind())
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), cur); err != nil {
			t.Fatal(err)
		}
		conds, _, _ := unstructured.NestedSlice(cur.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Ready" {
				if m["status"] == "True" {
					return
				}
				last = fmt.Sprintf("%v %v: %v", m["status"], m["reason"], m["message"])
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last == "" {
		last = "no Ready condition (a reconcile that cannot read what it needs never writes one)"
	}
	t.Fatalf("%s %s not Ready in 60 s; last: %s", o.GetKind(), o.GetName(), last)
}
