package manifests

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/arm"
)

// Two teams, each with its own subscription and credential Secret, and a
// namespace with none; the operator's own token may use every
// subscription.
const (
	trustSubA     = "00000000-0000-0000-0000-00000000a001"
	trustSubB     = "00000000-0000-0000-0000-00000000b001"
	trustPassword = "Tru5t-sql-Passw0rd!"
	resourcesV    = "resources.azure.armature.dev/v20240301"
	storageV      = "storage.azure.armature.dev/v20230501"
)

// TestTrust replays the attacks of an object's editor (issue 25) against
// the operator as config/default deploys it — its Deployment's flags, its
// ServiceAccount's RBAC (impersonated), its admission webhook served and
// called by the apiserver — and shows each one refused or contained, with
// nothing written to ARM that should not be.
func TestTrust(t *testing.T) {
	objs := build(t, filepath.Join(configDir(), "default"))
	port, probe := freePort(t), freePort(t)
	routeToHost(t, objs, port)
	t.Cleanup(func() { uninstallWebhooks(t, objs) })
	installForReal(t, objs)
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1, RetryAfter: -1, Token: "t", Apps: []fakearm.App{
		{Tenant: "tenant", ClientID: "app-a", Secret: "secret-a", Subscriptions: []string{trustSubA}},
		{Tenant: "tenant", ClientID: "app-b", Secret: "secret-b", Subscriptions: []string{trustSubB}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	var stolen atomic.Int32
	thief := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		_, _ = w.Write([]byte(`{"status":"InProgress"}`))
	}))
	t.Cleanup(thief.Close)

	cfg := operatorFromDeployment(t, objs, fa, port, probe)
	// As deployed: no namespace may use the operator's own identity.
	cfg.DefaultCredentialNamespaces = nil
	cfg.LeaderElectionID = "trust-test"
	runOperator(t, cfg)
	waitReadyz(t, probe, 60*time.Second)

	nsA, nsA2, nsB, nsC := "trust-a", "trust-a2", "trust-b", "trust-c"
	for _, ns := range []string{nsA, nsA2, nsB, nsC} {
		ensureNamespace(t, ns)
	}
	credential(t, nsA, "app-a", "secret-a", trustSubA)
	credential(t, nsA2, "app-a", "secret-a", trustSubA)
	credential(t, nsB, "app-b", "secret-b", trustSubB)

	rgA, saA := trustGroup(nsA, "team-a"), trustAccount(nsA, "teamadata01", "team-a")
	rgB, saB := trustGroup(nsB, "team-b"), trustAccount(nsB, "teambdata01", "team-b")
	create(t, rgA, saA, rgB, saB)
	for _, o := range []*unstructured.Unstructured{rgA, saA, rgB, saB} {
		waitReady(t, o)
	}
	idB := "/subscriptions/" + trustSubB + "/resourceGroups/team-b/providers/Microsoft.Storage/storageAccounts/teambdata01"
	groupB := "/subscriptions/" + trustSubB + "/resourceGroups/team-b"
	outcomes := map[string]string{}

	t.Run("TokenTheft", func(t *testing.T) {
		// The poll URL of an operation rewritten to another host, then a
		// tag touched so that the operator reconciles.
		op, _ := json.Marshal(map[string]any{"verb": "PUT", "id": idB, "token": `{"type":"AzureAsyncOperation","token":"{\"asyncURL\":\"` + thief.URL + `/poll\",\"method\":\"PUT\",\"state\":\"InProgress\"}"}`})
		patch(t, saA, map[string]any{"metadata": map[string]any{"annotations": map[string]any{core.AnnotationOperation: string(op)}}, "spec": map[string]any{"tags": map[string]any{"touched": "1"}}})
		waitEvent(t, saA, core.EventOperationDiscarded)
		waitReady(t, saA)
		if n := stolen.Load(); n != 0 {
			t.Errorf("the other host got %d requests", n)
		}
		outcomes["token theft (poll URL rewritten)"] = fmt.Sprintf("discarded (%s), %d requests to the other host", core.EventOperationDiscarded, stolen.Load())
	})

	t.Run("ActionOnAnotherTeam", func(t *testing.T) {
		a := cr("actions.azure.armature.dev/v1alpha1", "Action", nsA, "steal-keys", map[string]any{
			"target": map[string]any{"armId": idB}, "action": "listKeys", "resultSecret": map[string]any{"name": "stolen-keys"},
		})
		create(t, a)
		phase := waitPhase(t, a, "Failed")
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: nsA, Name: "stolen-keys"}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
			t.Errorf("the Action's result Secret exists (err %v): B's keys in A's namespace", err)
		}
		answered := statuses(fa, http.MethodPost, idB+"/listKeys")
		for _, s := range answered {
			if s < 400 {
				t.Errorf("listKeys on B's account answered %d", s)
			}
		}
		outcomes["Action listKeys on another team's account"] = fmt.Sprintf("%s; ARM answered %v with team A's credential; no result Secret", phase, answered)
	})

	t.Run("EditedARMIDThenDelete", func(t *testing.T) {
		sa := trustAccount(nsA, "teamadata02", "team-a")
		create(t, sa)
		waitReady(t, sa)
		patch(t, sa, map[string]any{"metadata": map[string]any{"annotations": map[string]any{core.AnnotationARMID: idB}}})
		del(t, sa)
		waitGone(t, sa)
		if n := len(statuses(fa, http.MethodDelete, idB)); n != 0 {
			t.Errorf("%d DELETEs of B's account", n)
		}
		outcomes["armature.dev/arm-id edited to another team's account, object deleted"] = fmt.Sprintf("%d DELETEs of it (event %s)", len(statuses(fa, http.MethodDelete, idB)), core.EventRecordIgnored)
	})

	t.Run("ResourceIDOfAnotherTeam", func(t *testing.T) {
		sa := cr(storageV, "StorageAccount", nsA, "adopt-b", map[string]any{
			"resourceID": idB, "location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
		})
		create(t, sa)
		reason := waitNotReady(t, sa)
		del(t, sa)
		time.Sleep(2 * time.Second)
		for _, s := range statuses(fa, http.MethodDelete, idB) {
			if s < 400 {
				t.Errorf("B's account was deleted (%d)", s)
			}
		}
		// Not deletable with A's credential: the policy lets it go.
		patch(t, sa, map[string]any{"metadata": map[string]any{"annotations": map[string]any{core.AnnotationPolicy: "detach-on-delete"}}})
		waitGone(t, sa)
		outcomes["spec.resourceID of another team's account, then deleted"] = fmt.Sprintf("%s; DELETE answered %v (team A's credential)", reason, statuses(fa, http.MethodDelete, idB))
	})

	t.Run("GroupThatExists", func(t *testing.T) {
		// A group made in A's subscription outside the operator.
		c, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: fa.HTTPClient()})
		if err != nil {
			t.Fatal(err)
		}
		existing := "/subscriptions/" + trustSubA + "/resourceGroups/made-elsewhere"
		if _, err := c.Put(context.Background(), existing, "2024-03-01", []byte(`{"location":"westeurope"}`)); err != nil {
			t.Fatal(err)
		}
		rg := trustGroup(nsA, "made-elsewhere")
		create(t, rg)
		waitReason(t, rg, core.ReasonAzureResourceExists)
		del(t, rg)
		waitGone(t, rg)
		if n := len(statuses(fa, http.MethodDelete, existing)); n != 0 {
			t.Errorf("%d DELETEs of a group the object never created", n)
		}
		if n := len(statuses(fa, http.MethodPut, existing)); n != 1 {
			t.Errorf("%d PUTs of the group, want only its maker's", n)
		}
		outcomes["ResourceGroup object named like an existing group"] = core.ReasonAzureResourceExists + "; 0 writes, 0 DELETEs"
	})

	t.Run("SameIDTwice", func(t *testing.T) {
		// Another namespace with a credential for the same subscription
		// names A's group.
		rg := trustGroup(nsA2, "team-a")
		create(t, rg)
		waitReason(t, rg, core.ReasonClaimedByAnotherObject)
		del(t, rg)
		waitGone(t, rg)
		group := "/subscriptions/" + trustSubA + "/resourceGroups/team-a"
		if n := len(statuses(fa, http.MethodDelete, group)); n != 0 {
			t.Errorf("%d DELETEs of A's group", n)
		}
		outcomes["a second object (other namespace) for A's group, then deleted"] = core.ReasonClaimedByAnotherObject + "; 0 DELETEs"
	})

	t.Run("DotDotName", func(t *testing.T) {
		sa := trustAccount(nsA, "climber", "team-a")
		sa.Object["spec"].(map[string]any)["azureName"] = "../../../../" + trustSubB + "/resourceGroups/team-b/providers/Microsoft.Storage/storageAccounts/teambdata01"
		err := k8s.Create(context.Background(), sa)
		if err == nil || !strings.Contains(err.Error(), "spec.azureName") {
			t.Fatalf("create: %v, want admission to refuse spec.azureName", err)
		}
		outcomes["azureName with ../"] = "refused at admission: " + firstLine(err.Error())
	})

	t.Run("NoCredential", func(t *testing.T) {
		rg := trustGroup(nsC, "team-c")
		create(t, rg)
		waitReason(t, rg, core.ReasonCredentialNotFound)
		for _, e := range fa.Journal() {
			if strings.Contains(e.Path, "/resourceGroups/team-c") {
				t.Errorf("a namespace without a credential reached ARM: %s %s", e.Method, e.Path)
			}
		}
		outcomes["namespace without a credential Secret"] = core.ReasonCredentialNotFound + "; 0 ARM calls"
	})

	t.Run("SecretsStayInSecrets", func(t *testing.T) {
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: nsA, Name: "sql-admin"}, StringData: map[string]string{"password": trustPassword}}
		if err := k8s.Create(context.Background(), sec); err != nil {
			t.Fatal(err)
		}
		for _, policy := range []string{"plan", "manage"} {
			srv := cr("sql.azure.armature.dev/v20211101", "Server", nsA, "sql-"+policy, map[string]any{
				"owner": map[string]any{"name": "team-a"}, "location": "westeurope",
				"properties": map[string]any{"administratorLogin": "sqladmin", "administratorLoginPassword": map[string]any{"name": "sql-admin", "key": "password"}},
			})
			srv.SetAnnotations(map[string]string{core.AnnotationPolicy: policy})
			create(t, srv)
			if policy == "plan" {
				waitReason(t, srv, core.ReasonPlan)
			} else {
				waitReady(t, srv)
			}
			cur := current(t, srv)
			raw, _ := json.Marshal(cur.Object)
			if strings.Contains(string(raw), trustPassword) {
				t.Errorf("%s: the object holds the password", policy)
			}
			if policy == "plan" && !strings.Contains(cur.GetAnnotations()[core.AnnotationPlan], core.Redacted) {
				t.Errorf("plan: %s", cur.GetAnnotations()[core.AnnotationPlan])
			}
		}
		var events corev1.EventList
		if err := k8s.List(context.Background(), &events, client.InNamespace(nsA)); err != nil {
			t.Fatal(err)
		}
		for _, e := range events.Items {
			if strings.Contains(e.Message, trustPassword) {
				t.Errorf("event %s holds the password", e.Reason)
			}
		}
		for _, e := range fa.Journal() {
			if strings.Contains(e.Body, trustPassword) {
				t.Errorf("the emulator's journal holds the password: %s %s", e.Method, e.Path)
			}
		}
		outcomes["secret values (plan policy, manage, events, ARM journal)"] = "none outside the Secret"
	})

	// Nothing was written to team B's subscription but B's own objects'
	// creates.
	for _, e := range fa.Journal() {
		if e.Method == http.MethodGet || !strings.Contains(e.Path, trustSubB) || e.Status >= 400 {
			continue
		}
		if !(e.Method == http.MethodPut && (strings.EqualFold(e.Path, idB) || strings.EqualFold(e.Path, groupB))) {
			t.Errorf("a write to B's subscription: %s %s %d", e.Method, e.Path, e.Status)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(outcomes)) {
		t.Logf("%-75s %s", k+":", outcomes[k])
	}
}

func credential(t *testing.T, ns, client, secret, sub string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: core.CredentialSecret}, StringData: map[string]string{
		core.KeyTenantID: "tenant", core.KeyClientID: client, core.KeyClientSecret: secret, core.KeySubscriptionID: sub,
	}}
	if err := k8s.Create(context.Background(), s); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func trustGroup(ns, name string) *unstructured.Unstructured {
	return cr(resourcesV, "ResourceGroup", ns, name, map[string]any{"location": "westeurope"})
}

func trustAccount(ns, name, owner string) *unstructured.Unstructured {
	return cr(storageV, "StorageAccount", ns, name, map[string]any{
		"owner": map[string]any{"name": owner}, "location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
	})
}

// del deletes o as a user would: the operator's finalizer runs.
func del(t *testing.T, o *unstructured.Unstructured) {
	t.Helper()
	if err := k8s.Delete(context.Background(), current(t, o)); err != nil {
		t.Fatalf("delete %s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

func create(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if err := k8s.Create(context.Background(), o); err != nil {
			t.Fatalf("create %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
}

func current(t *testing.T, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(o.GroupVersionKind())
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), cur); err != nil {
		t.Fatal(err)
	}
	return cur
}

func patch(t *testing.T, o *unstructured.Unstructured, p map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(p)
	if err := k8s.Patch(context.Background(), current(t, o), client.RawPatch(types.MergePatchType, raw)); err != nil {
		t.Fatalf("patch %s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

// readyOf returns the Ready condition's status, reason and message.
func readyOf(u *unstructured.Unstructured) (string, string, string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "Ready" {
			s, _ := m["status"].(string)
			r, _ := m["reason"].(string)
			msg, _ := m["message"].(string)
			return s, r, msg
		}
	}
	return "", "", ""
}

func until(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	last := ""
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
	}
	t.Fatalf("%s: not within 60 s; last: %s", what, last)
}

func waitReason(t *testing.T, o *unstructured.Unstructured, reason string) {
	t.Helper()
	until(t, o.GetKind()+" "+o.GetName()+" reason "+reason, func() (bool, string) {
		s, r, m := readyOf(current(t, o))
		return r == reason, s + " " + r + ": " + m
	})
}

// waitNotReady waits for a Ready=False condition and returns its reason.
func waitNotReady(t *testing.T, o *unstructured.Unstructured) string {
	t.Helper()
	reason := ""
	until(t, o.GetKind()+" "+o.GetName()+" not Ready", func() (bool, string) {
		s, r, m := readyOf(current(t, o))
		reason = r + ": " + firstLine(m)
		return s == "False" && r != core.ReasonReconciling, s + " " + reason
	})
	return reason
}

// waitPhase waits for an Action's phase and returns its Ready reason.
func waitPhase(t *testing.T, a *unstructured.Unstructured, phase string) string {
	t.Helper()
	reason := ""
	until(t, "Action "+a.GetName()+" "+phase, func() (bool, string) {
		cur := current(t, a)
		p, _, _ := unstructured.NestedString(cur.Object, "status", "phase")
		_, r, m := readyOf(cur)
		reason = phase + " (" + r + ": " + firstLine(m) + ")"
		return p == phase, p + " " + r + " " + m
	})
	return reason
}

func waitGone(t *testing.T, o *unstructured.Unstructured) {
	t.Helper()
	until(t, o.GetKind()+" "+o.GetName()+" gone", func() (bool, string) {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(o.GroupVersionKind())
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), cur)
		_, r, m := readyOf(cur)
		return apierrors.IsNotFound(err), r + " " + m
	})
}

// waitEvent waits for an Event of reason on o.
func waitEvent(t *testing.T, o *unstructured.Unstructured, reason string) {
	t.Helper()
	until(t, "event "+reason+" on "+o.GetName(), func() (bool, string) {
		var events corev1.EventList
		if err := k8s.List(context.Background(), &events, client.InNamespace(o.GetNamespace())); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range events.Items {
			if e.InvolvedObject.Name == o.GetName() {
				if e.Reason == reason {
					return true, ""
				}
				seen = append(seen, e.Reason)
			}
		}
		return false, strings.Join(seen, ", ")
	})
}

// statuses are the statuses the emulator answered to method on path
// (exact, any letter case).
func statuses(fa *fakearm.Running, method, path string) []int {
	var out []int
	for _, e := range fa.Journal() {
		if e.Method == method && strings.EqualFold(e.Path, path) {
			out = append(out, e.Status)
		}
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
