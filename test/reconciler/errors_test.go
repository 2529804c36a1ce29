package reconciler_test

import (
	"context"
	"encoding/json"
	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/recording"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// One test per class of runtime/arm's error table: the emulator answers
// an ARM error by code (fakearm CodeFault), and the journal shows how often
// the operator sends the request again in a window (no hot loop), the
// Ready condition carries ARM's code and message, ActionRequired says
// whether the user must act, and one Event is recorded, not one per retry.

// errorWindow is how long each test watches the retries.
const errorWindow = 6 * time.Second

// attempts counts the journal's requests of method on paths containing
// path, from the first one for window; it returns the count and the time
// of the first.
func attempts(fa *fakearm.Running, method, path string, window time.Duration) int {
	n := 0
	var first time.Time
	for _, e := range fa.Journal() {
		if e.Method != method || !strings.Contains(e.Path, path) {
			continue
		}
		if first.IsZero() {
			first = e.Time
		}
		if e.Time.Sub(first) <= window {
			n++
		}
	}
	return n
}

// firstAttempt waits for the first request of method on path and returns
// its time.
func firstAttempt(t *testing.T, fa *fakearm.Running, method, path string) time.Time {
	t.Helper()
	var at time.Time
	eventually(t, 20*time.Second, "a "+method+" of "+path, func() (bool, string) {
		for _, e := range fa.Journal() {
			if e.Method == method && strings.Contains(e.Path, path) {
				at = e.Time
				return true, ""
			}
		}
		return false, ""
	})
	return at
}

// watchWindow sleeps until window has passed since from.
func watchWindow(from time.Time, window time.Duration) {
	time.Sleep(time.Until(from.Add(window + 200*time.Millisecond)))
}

// warnings sums the counts of the object's Events with reason (the
// recorder folds repeats of one Event into its count).
func warnings(t *testing.T, ns, name, reason string) int32 {
	t.Helper()
	var evs corev1.EventList
	if err := k8s.List(context.Background(), &evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var n int32
	for _, e := range evs.Items {
		if e.InvolvedObject.Name == name && e.Reason == reason {
			n += max(e.Count, 1)
		}
	}
	return n
}

// errorsMetric is armature_arm_errors_total{code,class}.
func errorsMetric(t *testing.T, code, class string) float64 {
	t.Helper()
	fams, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "armature_arm_errors_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["code"] == code && labels["class"] == class {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// checkCondition asserts Ready=False with reason and a message starting
// with ARM's, and ActionRequired.
func checkCondition(t *testing.T, o *unstructured.Unstructured, reason, armMessage, actionRequired string) {
	t.Helper()
	cur := get(t, o)
	s, r, msg := readyReason(cur)
	if s != "False" || r != reason || !strings.HasPrefix(msg, armMessage) {
		t.Errorf("Ready = %s %s %q; want False %s %q…", s, r, msg, reason, armMessage)
	}
	if a := condition(cur, "ActionRequired"); a != actionRequired {
		t.Errorf("ActionRequired = %q, want %q", a, actionRequired)
	}
}

// TestErrorClassRetry: AnotherOperationInProgress (409) is retried with
// backoff — a handful of PUTs in the window, not a loop — and converges
// once the other operation ends.
func TestErrorClassRetry(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{RetryBackoff: reconciler.Backoff{Initial: 250 * time.Millisecond, Max: 2 * time.Second}})
	rg := resourceGroup(ns, "retry")
	create(t, rg)
	waitReady(t, rg)

	const msg = "Operation 'write' on storage account 'busy01' is not allowed: another operation is in progress."
	fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodPut, PathContains: "storageAccounts/busy01", Status: http.StatusConflict, Code: "AnotherOperationInProgress", Message: msg})
	before := errorsMetric(t, "AnotherOperationInProgress", "retry")
	sa := storageAccount(ns, "busy01", "retry")
	create(t, sa)
	from := firstAttempt(t, fa, http.MethodPut, "storageAccounts/busy01")
	waitReason(t, sa, "AnotherOperationInProgress")
	watchWindow(from, errorWindow)
	n := attempts(fa, http.MethodPut, "storageAccounts/busy01", errorWindow)
	t.Logf("retry: %d PUTs in %s (backoff 250ms doubling to 2s)", n, errorWindow)
	if n < 3 || n > 8 {
		t.Errorf("retry with backoff: %d PUTs in %s, want 3 to 8", n, errorWindow)
	}
	checkCondition(t, sa, "AnotherOperationInProgress", msg, "False")
	if w := warnings(t, ns, "busy01", "AnotherOperationInProgress"); w != 1 {
		t.Errorf("%d Events for %d failures, want 1", w, n)
	}
	if got := errorsMetric(t, "AnotherOperationInProgress", "retry") - before; got < float64(n-1) {
		t.Errorf("armature_arm_errors_total{AnotherOperationInProgress,retry} rose by %v, want ≥ %d", got, n-1)
	}
	fa.SetFaults(fakearm.Faults{})
	waitReady(t, sa)
}

// TestErrorClassRetryReadAfterWrite: a 404 on the GET right after an
// accepted PUT is ARM's read-after-write lag: retried, not taken for a
// deletion outside the operator (which would PUT again).
func TestErrorClassRetryReadAfterWrite(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{RetryBackoff: reconciler.Backoff{Initial: 200 * time.Millisecond, Max: time.Second}})
	fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodGet, PathContains: "resourceGroups/lag01", Status: http.StatusNotFound, Code: "ResourceGroupNotFound", Message: "Resource group 'lag01' could not be found.", Count: 3})
	rg := resourceGroup(ns, "lag01")
	create(t, rg)
	waitReady(t, rg)
	id := armID("lag01")
	if p := calls(fa, http.MethodPut, id); p != 1 {
		t.Errorf("%d PUTs, want 1: a 404 right after the write is not a deletion", p)
	}
	if g := fa.Count("GET 404"); g != 3 {
		t.Errorf("%d GETs answered 404, want the 3 injected", g)
	}
	if w := warnings(t, ns, "lag01", core.EventDriftDetected); w != 0 {
		t.Errorf("%d DriftDetected Events: the lag was taken for a deletion", w)
	}
}

// TestErrorClassObjectChange: InvalidParameter (400) waits for a change of
// the object: one PUT, nothing more however long it waits; an edit sends
// the next.
func TestErrorClassObjectChange(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	rg := resourceGroup(ns, "object")
	create(t, rg)
	waitReady(t, rg)

	const msg = "The value 'Premium' is not valid for property 'accessTier'."
	fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodPut, PathContains: "storageAccounts/badparam", Status: http.StatusBadRequest, Code: "InvalidParameter", Message: msg, Target: "properties.accessTier"})
	sa := storageAccount(ns, "badparam", "object")
	create(t, sa)
	from := firstAttempt(t, fa, http.MethodPut, "storageAccounts/badparam")
	waitReason(t, sa, "InvalidParameter")
	watchWindow(from, errorWindow)
	n := attempts(fa, http.MethodPut, "storageAccounts/badparam", errorWindow)
	t.Logf("object-change: %d PUTs in %s", n, errorWindow)
	if n != 1 {
		t.Errorf("a terminal error: %d PUTs in %s, want 1", n, errorWindow)
	}
	checkCondition(t, sa, "InvalidParameter", msg+" (target properties.accessTier)", "True")
	if w := warnings(t, ns, "badparam", "InvalidParameter"); w != 1 {
		t.Errorf("%d Events, want 1", w)
	}
	// Another reconcile of the same spec (here a changed sync period; an
	// owner's readiness flipping brings one too, as the playback of
	// Test_AzureName_IsImmutable_IfAzureHasBeenCommunicatedWith showed)
	// does not send the refused body again: ARM would refuse it again.
	cur := get(t, sa)
	cur.SetAnnotations(map[string]string{core.AnnotationSyncPeriod: "1h"})
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	watchWindow(time.Now(), 2*time.Second)
	if n := calls(fa, http.MethodPut, armID("object", "Microsoft.Storage/storageAccounts/badparam")); n != 1 {
		t.Errorf("%d PUTs after a reconcile of the unchanged spec, want 1", n)
	}
	checkCondition(t, sa, "InvalidParameter", msg+" (target properties.accessTier)", "True")
	// The object changes: the next PUT goes out (and Azure takes it).
	fa.SetFaults(fakearm.Faults{})
	cur = get(t, sa)
	_ = unstructured.SetNestedField(cur.Object, "Cool", "spec", "properties", "accessTier")
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	waitReady(t, sa)
}

// TestErrorClassWorldChange: AuthorizationFailed (403) waits for a change
// of the world with a slow retry: a few PUTs in the window; granting the
// role (the fault removed) makes it Ready without a change of the object.
func TestErrorClassWorldChange(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{WorldBackoff: reconciler.Backoff{Initial: time.Second, Max: 2 * time.Second}})
	rg := resourceGroup(ns, "world")
	create(t, rg)
	waitReady(t, rg)

	id := armID("world", "Microsoft.Storage/storageAccounts/noaccess")
	msg := "The client 'armature' with object id 'armature' does not have authorization to perform action 'Microsoft.Storage/storageAccounts/write' over scope '" + id + "' or the scope is invalid. If access was recently granted, please refresh your credentials."
	fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodPut, PathContains: "storageAccounts/noaccess", Status: http.StatusForbidden, Code: "AuthorizationFailed", Message: msg})
	sa := storageAccount(ns, "noaccess", "world")
	create(t, sa)
	from := firstAttempt(t, fa, http.MethodPut, "storageAccounts/noaccess")
	waitReason(t, sa, "AuthorizationFailed")
	watchWindow(from, errorWindow)
	n := attempts(fa, http.MethodPut, "storageAccounts/noaccess", errorWindow)
	t.Logf("world-change: %d PUTs in %s (backoff 1s doubling to 2s)", n, errorWindow)
	if n < 2 || n > 5 {
		t.Errorf("a slow retry: %d PUTs in %s, want 2 to 5", n, errorWindow)
	}
	checkCondition(t, sa, "AuthorizationFailed", msg, "True")
	if w := warnings(t, ns, "noaccess", "AuthorizationFailed"); w != 1 {
		t.Errorf("%d Events for %d failures, want 1", w, n)
	}
	fa.SetFaults(fakearm.Faults{}) // the role is granted
	waitReady(t, sa)
}

// TestErrorClassWorldChangeRegister: MissingSubscriptionRegistration (409,
// the emulator's own answer for an unregistered provider) waits with the
// registration command in the message; with --register-providers the
// operator registers the provider once, as the portal does, and both
// objects converge.
func TestErrorClassWorldChangeRegister(t *testing.T) {
	fa := startARM(t, 1)
	fa.Unregister(subscription, "Microsoft.ManagedIdentity")
	world := reconciler.Backoff{Initial: 500 * time.Millisecond, Max: time.Second}
	identity := func(ns, name, owner string) *unstructured.Unstructured {
		return cr("UserAssignedIdentity", "managedidentity.azure.armature.dev/v20230131", ns, name, map[string]any{"owner": map[string]any{"name": owner}, "location": "westeurope"})
	}
	register := "/subscriptions/" + subscription + "/providers/Microsoft.ManagedIdentity/register"

	nsA := namespace(t)
	startOperator(t, fa, nsA, reconciler.Config{WorldBackoff: world})
	rgA, idA := resourceGroup(nsA, "reg-a"), identity(nsA, "app-a", "reg-a")
	create(t, rgA, idA)
	waitReason(t, idA, "MissingSubscriptionRegistration")
	_, _, msg := readyReason(get(t, idA))
	if !strings.Contains(msg, "not registered to use namespace 'Microsoft.ManagedIdentity'") || !strings.Contains(msg, "--register-providers") {
		t.Errorf("message %q: ARM's, then how to register", msg)
	}
	time.Sleep(2 * time.Second)
	if n := calls(fa, http.MethodPost, register); n != 0 {
		t.Errorf("without --register-providers: %d registrations", n)
	}

	nsB := namespace(t)
	startOperator(t, fa, nsB, reconciler.Config{WorldBackoff: world, RegisterProviders: true})
	rgB, idB := resourceGroup(nsB, "reg-b"), identity(nsB, "app-b", "reg-b")
	create(t, rgB, idB)
	waitReady(t, idB, idA) // A converges too: the world changed
	if n := calls(fa, http.MethodPost, register); n != 1 {
		t.Errorf("%d registrations, want 1", n)
	}
	if w := warnings(t, nsB, "app-b", core.EventRegisteringProvider); w != 1 {
		t.Errorf("%d RegisteringProvider Events, want 1", w)
	}
}

// TestErrorClassNameTaken: StorageAccountAlreadyTaken and a soft-deleted
// Key Vault of the same name (ConflictError) say how to recover, are
// retried slowly, and converge once the name is free.
func TestErrorClassNameTaken(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{NameTakenBackoff: reconciler.Backoff{Initial: time.Second, Max: 2 * time.Second}})
	rg := resourceGroup(ns, "taken")
	create(t, rg)
	waitReady(t, rg)

	const saMsg = "The storage account named taken01 is already taken."
	const kvMsg = "Exist soft deleted vault with the same name."
	fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodPut, PathContains: "storageAccounts/taken01", Status: http.StatusConflict, Code: "StorageAccountAlreadyTaken", Message: saMsg})
	fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodPut, PathContains: "vaults/kv01", Status: http.StatusConflict, Code: "ConflictError", Message: kvMsg})
	sa := storageAccount(ns, "taken01", "taken")
	kv := cr("Vault", "keyvault.azure.armature.dev/v20230701", ns, "kv01", map[string]any{
		"owner": map[string]any{"name": "taken"}, "location": "westeurope",
		"properties": map[string]any{"tenantId": "00000000-0000-0000-0000-0000000000ad", "sku": map[string]any{"family": "A", "name": "standard"}},
	})
	create(t, sa, kv)
	from := firstAttempt(t, fa, http.MethodPut, "storageAccounts/taken01")
	waitReason(t, sa, "StorageAccountAlreadyTaken")
	waitReason(t, kv, "ConflictError")
	watchWindow(from, errorWindow)
	n := attempts(fa, http.MethodPut, "storageAccounts/taken01", errorWindow)
	t.Logf("name-taken: %d PUTs in %s (backoff 1s doubling to 2s)", n, errorWindow)
	if n < 2 || n > 5 {
		t.Errorf("a slow retry: %d PUTs in %s, want 2 to 5", n, errorWindow)
	}
	checkCondition(t, sa, "StorageAccountAlreadyTaken", saMsg, "True")
	checkCondition(t, kv, "ConflictError", kvMsg, "True")
	if _, _, msg := readyReason(get(t, sa)); !strings.Contains(msg, "spec.azureName") {
		t.Errorf("the storage message says how to recover: %q", msg)
	}
	if _, _, msg := readyReason(get(t, kv)); !strings.Contains(msg, "recover") || !strings.Contains(msg, "purge") {
		t.Errorf("the vault message says how to recover or purge: %q", msg)
	}
	if w := warnings(t, ns, "taken01", "StorageAccountAlreadyTaken"); w != 1 {
		t.Errorf("%d Events for %d failures, want 1", w, n)
	}
	fa.SetFaults(fakearm.Faults{}) // the vault is purged, the name freed
	waitReady(t, sa, kv)
}

// TestPrincipalNotFoundIsRetried: a role assignment for a principal
// created seconds before is refused with 400 PrincipalNotFound until
// Microsoft Entra ID has replicated it, then created, as recorded
// (Test_Authorization_RoleAssignment_OnResourceGroup_CRUD.yaml #5 to #9:
// four refusals, then 201). The recorded answer is the data: a retry, not
// a wait for a change of the object.
func TestPrincipalNotFoundIsRetried(t *testing.T) {
	c, err := recording.LoadCassette(filepath.Join("..", "recordings", "Test_Authorization_RoleAssignment_OnResourceGroup_CRUD.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	refused := c.Interactions[5].Response
	var body struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(refused.Body), &body); err != nil || refused.Code != http.StatusBadRequest || body.Error.Code != "PrincipalNotFound" {
		t.Fatalf("recorded #5: %d %s (%v), want the recorded 400 PrincipalNotFound", refused.Code, refused.Body, err)
	}

	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{RetryBackoff: reconciler.Backoff{Initial: 200 * time.Millisecond, Max: time.Second}})
	rg := resourceGroup(ns, "access")
	create(t, rg)
	waitReady(t, rg)
	const name = "71350183-d252-4648-9f93-7993b21f9ba7"
	fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodPut, PathContains: "roleAssignments/" + name, Status: refused.Code, Code: body.Error.Code, Message: body.Error.Message, Count: 4})
	ra := cr("RoleAssignment", "authorization.azure.armature.dev/v20220401", ns, "reader", map[string]any{
		"owner": map[string]any{"group": "resources.azure.armature.dev", "kind": "ResourceGroup", "name": "access"}, "azureName": name,
		"properties": map[string]any{
			"principalId":      "ec4e6df4-33a6-4659-aa40-ad9302949510",
			"roleDefinitionId": "/subscriptions/" + subscription + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
		}})
	create(t, ra)
	waitReady(t, ra)
	id := armID("access", "Microsoft.Authorization/roleAssignments/"+name)
	if n := calls(fa, http.MethodPut, id); n != 5 {
		t.Errorf("%d PUTs, want 5: four refused as recorded, retried, then created", n)
	}
	if w := warnings(t, ns, "reader", "PrincipalNotFound"); w != 1 {
		t.Errorf("%d PrincipalNotFound Events, want 1", w)
	}
}
