package reconciler_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// TestConvergeEditDelete: RG → StorageAccount → blob service → container
// converge; a writable edit sends one PATCH and no PUT; a resource without
// PATCH gets GET + PUT; a no-op resync sends one GET and writes nothing;
// delete sends DELETE and drops the finalizer.
func TestConvergeEditDelete(t *testing.T) {
	fa := startARM(t, 2)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	rg := resourceGroup(ns, "team-a")
	sa := storageAccount(ns, "media01", "team-a")
	blob := cr("StorageAccountsBlobService", storageAPI, ns, "media01-blob", map[string]any{"owner": map[string]any{"name": "media01"}})
	ctr := cr("StorageAccountsBlobServicesContainer", storageAPI, ns, "images", map[string]any{
		"owner": map[string]any{"name": "media01-blob"}, "properties": map[string]any{"publicAccess": "None"},
	})
	create(t, ctr, blob, sa, rg) // children first: they wait for their owners
	waitReady(t, rg, sa, blob, ctr)

	saID := armID("team-a", "Microsoft.Storage/storageAccounts/media01")
	got := get(t, sa)
	if id, _, _ := unstructured.NestedString(got.Object, "status", "id"); id != saID {
		t.Errorf("status.id = %q, want %q", id, saID)
	}
	if tier, _, _ := unstructured.NestedString(got.Object, "status", "properties", "accessTier"); tier != "Hot" {
		t.Errorf("status carries ARM fields: accessTier %q", tier)
	}
	if calls(fa, http.MethodPut, saID) != 1 {
		t.Errorf("one PUT creates the account, journal has %d", calls(fa, http.MethodPut, saID))
	}
	if id, _, _ := unstructured.NestedString(get(t, ctr).Object, "status", "id"); !strings.HasSuffix(id, "/blobServices/default/containers/images") {
		t.Errorf("container id %q", id)
	}

	// A writable edit: exactly one PATCH, no PUT.
	fa.ResetJournal()
	cur := get(t, sa)
	_ = unstructured.SetNestedField(cur.Object, "Cool", "spec", "properties", "accessTier")
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "Azure has accessTier Cool", func() (bool, string) {
		body := fa.Resource(saID)
		tier, _, _ := unstructured.NestedString(body, "properties", "accessTier")
		return tier == "Cool", tier
	})
	time.Sleep(300 * time.Millisecond)
	if p, u := calls(fa, http.MethodPatch, saID), calls(fa, http.MethodPut, saID); p != 1 || u != 0 {
		t.Errorf("edit sent %d PATCH and %d PUT, want 1 and 0", p, u)
	}

	// No PATCH on blob services: GET + PUT.
	blobID := saID + "/blobServices/default"
	fa.ResetJournal()
	cur = get(t, blob)
	_ = unstructured.SetNestedField(cur.Object, map[string]any{"enabled": true, "days": int64(7)}, "spec", "properties", "deleteRetentionPolicy")
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "blob service updated by PUT", func() (bool, string) {
		return calls(fa, http.MethodPut, blobID) == 1, ""
	})
	if calls(fa, http.MethodPatch, blobID) != 0 {
		t.Error("blob services have no PATCH")
	}
	var seq []string
	for _, e := range fa.Journal() {
		if e.Path == blobID {
			seq = append(seq, e.Method)
		}
	}
	if len(seq) < 2 || seq[0] != http.MethodGet || seq[1] != http.MethodPut {
		t.Errorf("an update without PATCH is GET then PUT, got %v", seq)
	}

	// A no-op reconcile of a settled object: nothing to ARM (the drift
	// observer's LIST watches it), no apiserver write.
	waitReady(t, blob)
	time.Sleep(300 * time.Millisecond)
	before := get(t, sa).GetResourceVersion()
	fa.ResetJournal()
	cur = get(t, sa)
	a := cur.GetAnnotations()
	a[core.AnnotationSyncPeriod] = "1h" // a change of the sync period requeues: a resync
	cur.SetAnnotations(a)
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	afterAnnotation := get(t, sa).GetResourceVersion()
	time.Sleep(1500 * time.Millisecond) // the reconcile runs meanwhile
	if t.Failed() || calls(fa, http.MethodPut, saID) > 0 {
		var evs corev1.EventList
		_ = k8s.List(context.Background(), &evs, client.InNamespace(ns))
		for _, e := range evs.Items {
			t.Logf("event %s %s: %s", e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}
	if g := calls(fa, http.MethodGet, saID); g != 0 {
		t.Errorf("a no-op reconcile sent %d GETs, want 0", g)
	}
	for _, m := range []string{http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if n := calls(fa, m, saID); n != 0 {
			t.Errorf("resync sent %d %s", n, m)
		}
	}
	if rv := get(t, sa).GetResourceVersion(); rv != afterAnnotation || rv == before {
		t.Errorf("resync wrote to the apiserver: resourceVersion %s → %s → %s", before, afterAnnotation, rv)
	}

	// Delete: DELETE in ARM, finalizer gone, object gone.
	fa.ResetJournal()
	ctrID := blobID + "/containers/images"
	if err := k8s.Delete(context.Background(), get(t, ctr)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "container CR gone", func() (bool, string) {
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(ctr), &unstructured.Unstructured{Object: map[string]any{"apiVersion": storageAPI, "kind": ctr.GetKind()}})
		return err != nil, ""
	})
	if calls(fa, http.MethodDelete, ctrID) != 1 || fa.Resource(ctrID) != nil {
		t.Errorf("DELETE sent %d times; resource still there: %v", calls(fa, http.MethodDelete, ctrID), fa.Resource(ctrID) != nil)
	}
}

// TestOwnerArrivesLater: a child waits with WaitingForOwner and converges
// within seconds of its owner becoming Ready (a watch, not polling: the
// sync period is an hour).
func TestOwnerArrivesLater(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	sa := storageAccount(ns, "late01", "later")
	create(t, sa)
	waitReason(t, sa, core.ReasonWaitingForOwner)
	if n := len(fa.Journal()); n != 0 {
		t.Errorf("nothing is sent to ARM while the owner is missing, journal has %d", n)
	}
	start := time.Now()
	create(t, resourceGroup(ns, "later"))
	waitReady(t, sa)
	t.Logf("child Ready %s after its owner was created", time.Since(start).Round(time.Millisecond))
}

// TestRestartDuringOperation: an operator stopped while a PUT is in flight
// leaves the resume token on the object; a new one resumes polling and
// never sends the PUT again.
func TestRestartDuringOperation(t *testing.T) {
	fa := startARM(t, 40)
	ns := namespace(t)
	op := startOperator(t, fa, ns, reconciler.Config{PollInterval: 200 * time.Millisecond})
	rg := resourceGroup(ns, "restart")
	sa := storageAccount(ns, "restart01", "restart")
	create(t, rg, sa)
	waitReady(t, rg)
	eventually(t, 20*time.Second, "operation annotation", func() (bool, string) {
		return get(t, sa).GetAnnotations()[core.AnnotationOperation] != "", ""
	})
	op.stop()
	saID := armID("restart", "Microsoft.Storage/storageAccounts/restart01")
	if n := calls(fa, http.MethodPut, saID); n != 1 {
		t.Fatalf("%d PUTs before the restart", n)
	}
	startOperator(t, fa, ns, reconciler.Config{PollInterval: 20 * time.Millisecond})
	waitReady(t, sa)
	if n := calls(fa, http.MethodPut, saID); n != 1 {
		t.Errorf("the restarted operator sent the PUT again: %d PUTs", n)
	}
	if done, _, _ := unstructured.NestedString(get(t, sa).Object, "status", "lastOperation"); !strings.HasPrefix(done, "PUT ") {
		t.Errorf("after the operation status.lastOperation = %q", done)
	}
}

// TestPolicies: detach-on-delete sends no DELETE; adoption never creates;
// plan writes nothing to ARM.
func TestPolicies(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	rg := resourceGroup(ns, "policies")
	create(t, rg)
	waitReady(t, rg)

	// detach-on-delete
	kept := storageAccount(ns, "kept01", "policies")
	kept.SetAnnotations(map[string]string{core.AnnotationPolicy: string(core.PolicyDetachOnDelete)})
	create(t, kept)
	waitReady(t, kept)
	keptID := armID("policies", "Microsoft.Storage/storageAccounts/kept01")
	if err := k8s.Delete(context.Background(), get(t, kept)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "detached CR gone", func() (bool, string) {
		return k8s.Get(context.Background(), client.ObjectKeyFromObject(kept), get0(kept)) != nil, ""
	})
	if calls(fa, http.MethodDelete, keptID) != 0 || fa.Resource(keptID) == nil {
		t.Error("detach-on-delete must leave the Azure resource")
	}

	// adoption of something that does not exist: never created
	missingID := armID("policies", "Microsoft.Storage/storageAccounts/ghost01")
	ghost := storageAccount(ns, "ghost01", "policies")
	_ = unstructured.SetNestedField(ghost.Object, missingID, "spec", "resourceID")
	create(t, ghost)
	waitReason(t, ghost, core.ReasonAzureResourceNotFound)
	if calls(fa, http.MethodPut, missingID) != 0 {
		t.Error("adoption must never create")
	}

	// adoption of an existing resource: managed from then on
	keptCR := storageAccount(ns, "adopt01", "policies")
	_ = unstructured.SetNestedField(keptCR.Object, keptID, "spec", "resourceID")
	create(t, keptCR)
	waitReady(t, keptCR)

	// plan
	planned := storageAccount(ns, "plan01", "policies")
	planned.SetAnnotations(map[string]string{core.AnnotationPolicy: string(core.PolicyPlan)})
	create(t, planned)
	waitReason(t, planned, core.ReasonPlan)
	planID := armID("policies", "Microsoft.Storage/storageAccounts/plan01")
	if p := get(t, planned).GetAnnotations()[core.AnnotationPlan]; !strings.Contains(p, `"action":"create"`) || !strings.Contains(p, `"verb":"PUT"`) {
		t.Errorf("plan annotation %q", p)
	}
	if calls(fa, http.MethodPut, planID)+calls(fa, http.MethodPatch, planID) != 0 {
		t.Error("plan must not write to ARM")
	}
	if v, _, _ := unstructured.NestedString(get(t, planned).Object, "status", "reconcilePlan", "action"); v != "create" {
		t.Errorf("status.reconcilePlan.action = %q", v)
	}
}

// TestUnknownPolicy: a policy the operator does not know — a typo'd
// detach-on-delete — never means manage: Ready=False with reason
// UnknownPolicy, nothing sent to ARM, the finalizer kept, so deleting the
// custom resource never DELETEs the Azure resource. Fixing the annotation
// lets the operator act again.
func TestUnknownPolicy(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	rg := resourceGroup(ns, "typos")
	create(t, rg)
	waitReady(t, rg)

	// Created with a typo: never written, no finalizer.
	fresh := storageAccount(ns, "fresh01", "typos")
	fresh.SetAnnotations(map[string]string{core.AnnotationPolicy: "Skip"})
	create(t, fresh)
	waitReason(t, fresh, core.ReasonUnknownPolicy)
	freshID := armID("typos", "Microsoft.Storage/storageAccounts/fresh01")
	if n := calls(fa, http.MethodPut, freshID) + calls(fa, http.MethodPatch, freshID); n != 0 {
		t.Errorf("%d writes for an object with an unknown policy", n)
	}
	if fs := get(t, fresh).GetFinalizers(); len(fs) != 0 {
		t.Errorf("finalizers %v on an object the operator may not act on", fs)
	}

	// Managed, then the policy is typo'd, then the object is deleted.
	kept := storageAccount(ns, "kept01", "typos")
	create(t, kept)
	waitReady(t, kept)
	keptID := armID("typos", "Microsoft.Storage/storageAccounts/kept01")
	cur := get(t, kept)
	cur.SetAnnotations(map[string]string{core.AnnotationPolicy: "detach-on-delete "})
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	waitReason(t, kept, core.ReasonUnknownPolicy)
	if err := k8s.Delete(context.Background(), get(t, kept)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // reconciles of the deletion run meanwhile
	if n := calls(fa, http.MethodDelete, keptID); n != 0 || fa.Resource(keptID) == nil {
		t.Fatalf("a typo'd detach-on-delete sent %d DELETEs", n)
	}
	still := get(t, kept)
	if still.GetDeletionTimestamp().IsZero() || len(still.GetFinalizers()) == 0 {
		t.Fatalf("the custom resource must wait, finalizer kept: %v", still.GetFinalizers())
	}
	if _, reason, _ := readyReason(still); reason != core.ReasonUnknownPolicy {
		t.Errorf("deleting with an unknown policy: reason %q", reason)
	}

	// Fixed: detached as asked, still no DELETE.
	still.SetAnnotations(map[string]string{core.AnnotationPolicy: string(core.PolicyDetachOnDelete)})
	if err := k8s.Update(context.Background(), still); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "detached CR gone", func() (bool, string) {
		return k8s.Get(context.Background(), client.ObjectKeyFromObject(kept), get0(kept)) != nil, ""
	})
	if n := calls(fa, http.MethodDelete, keptID); n != 0 || fa.Resource(keptID) == nil {
		t.Errorf("detach-on-delete sent %d DELETEs", n)
	}
}

func get0(o *unstructured.Unstructured) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.GroupVersionKind())
	return u
}

// TestErrors: a 400 from ARM is terminal (≤ 3 ARM calls over several
// seconds, the ARM code as reason, ARM's message); a 429 storm converges.
// errors_test.go tests each class of the error table.
func TestErrors(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	rg := resourceGroup(ns, "errors")
	create(t, rg)
	waitReady(t, rg)

	fa.SetFaults(fakearm.Faults{ErrorRate: 1, ErrorStatus: http.StatusBadRequest, PathContains: "bad01"})
	bad := storageAccount(ns, "bad01", "errors")
	create(t, bad)
	waitReason(t, bad, "InternalServerError") // the injected fault's ARM code
	time.Sleep(5 * time.Second)
	badID := armID("errors", "Microsoft.Storage/storageAccounts/bad01")
	n := 0
	for _, e := range fa.Journal() {
		if strings.HasPrefix(e.Path, badID) {
			n++
		}
	}
	if n > 3 {
		t.Errorf("a terminal error must not loop: %d ARM calls", n)
	}
	_, _, msg := readyReason(get(t, bad))
	if msg != "The server encountered an internal error (injected fault)." { // ARM's message, as ARM said it
		t.Errorf("message %q", msg)
	}
	if s := condition(get(t, bad), "ActionRequired"); s != "True" {
		t.Errorf("a terminal error needs the user: ActionRequired=%q", s)
	}
	if s := condition(get(t, rg), "ActionRequired"); s != "False" {
		t.Errorf("a Ready resource: ActionRequired=%q", s)
	}

	// A 429 storm: half the requests throttled; everything converges.
	fa.SetFaults(fakearm.Faults{ThrottleRate: 0.5, ThrottleRetryAfterSeconds: 1, PathContains: "storm"})
	var objs []*unstructured.Unstructured
	for _, name := range []string{"storm01", "storm02", "storm03"} {
		o := storageAccount(ns, name, "errors")
		objs = append(objs, o)
		create(t, o)
	}
	waitReady(t, objs...)
	if fa.Count("PUT 429")+fa.Count("GET 429") == 0 {
		t.Error("the storm throttled nothing")
	}
}

func condition(u *unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == typ {
			s, _ := m["status"].(string)
			return s
		}
	}
	return ""
}

// TestStatusGETs: a scale set's instanceView is read with it and joined
// into status.
func TestStatusGETs(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	rg := resourceGroup(ns, "vmss")
	vmss := cr("VirtualMachineScaleSet", "compute.azure.armature.dev/v20240301", ns, "web", map[string]any{
		"owner": map[string]any{"name": "vmss"}, "location": "westeurope", "sku": map[string]any{"name": "Standard_D2s_v3", "capacity": int64(2)},
	})
	create(t, rg, vmss)
	waitReady(t, rg, vmss)
	code, _, _ := unstructured.NestedSlice(get(t, vmss).Object, "status", "instanceView", "statuses")
	if len(code) != 1 {
		t.Errorf("status.instanceView = %v", get(t, vmss).Object["status"].(map[string]any)["instanceView"])
	}
}

// TestHooks: per-kind hooks mutate the body, classify errors and add to
// status (registered for a kind no other test uses).
func TestHooks(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "managedidentity.azure.armature.dev", Version: "v20230131", Kind: "UserAssignedIdentity"}
	hooks := reconciler.WithHooks(gvk, reconciler.Hooks{
		MutateBody: func(_ *unstructured.Unstructured, body map[string]any) error {
			body["tags"] = map[string]any{"managed-by": "armature"}
			return nil
		},
		ClassifyError: func(err error) (bool, string, bool) { return true, "HookSaysStop", true },
		Status: func(_ *unstructured.Unstructured, status map[string]any) error {
			status["tags"] = map[string]any{"seen-by": "status-hook"}
			return nil
		},
	})
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{}, hooks)
	rg := resourceGroup(ns, "hooks")
	id := cr("UserAssignedIdentity", "managedidentity.azure.armature.dev/v20230131", ns, "app", map[string]any{"owner": map[string]any{"name": "hooks"}, "location": "westeurope"})
	create(t, rg, id)
	waitReady(t, rg, id)
	armIDOf := armID("hooks", "Microsoft.ManagedIdentity/userAssignedIdentities/app")
	if tags, _, _ := unstructured.NestedStringMap(fa.Resource(armIDOf), "tags"); tags["managed-by"] != "armature" {
		t.Errorf("MutateBody: tags sent %v", tags)
	}
	if tags, _, _ := unstructured.NestedStringMap(get(t, id).Object, "status", "tags"); tags["seen-by"] != "status-hook" {
		t.Errorf("Status hook: status.tags %v", tags)
	}
	fa.SetFaults(fakearm.Faults{ErrorRate: 1, ErrorStatus: 503, PathContains: "userAssignedIdentities/app2"})
	bad := cr("UserAssignedIdentity", "managedidentity.azure.armature.dev/v20230131", ns, "app2", map[string]any{"owner": map[string]any{"name": "hooks"}, "location": "westeurope"})
	create(t, bad)
	waitReason(t, bad, "HookSaysStop")
}

// TestDriftObserver: settled resources are observed with one LIST per
// collection, not a GET each; a resource changed in Azure is requeued
// alone (one GET, one PATCH back), one deleted in Azure is created again,
// and a failed LIST falls back to a GET per resource.
func TestDriftObserver(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{SyncPeriod: 2 * time.Second, FirstObservation: time.Second, Jitter: 0.01, ReadAfterWrite: 2 * time.Second})
	var accounts []*unstructured.Unstructured
	for g := 0; g < 2; g++ {
		rg := resourceGroup(ns, fmt.Sprintf("drift%d", g))
		create(t, rg)
		for i := 0; i < 3; i++ {
			sa := storageAccount(ns, fmt.Sprintf("drift%d%d", g, i), rg.GetName())
			create(t, sa)
			accounts = append(accounts, sa)
		}
	}
	waitReady(t, accounts...)
	time.Sleep(3 * time.Second) // settle: the first passes may requeue fresh objects once
	fa.ResetJournal()
	time.Sleep(4500 * time.Millisecond) // two passes
	lists, gets := 0, 0
	for _, e := range fa.Journal() {
		switch {
		case e.Method != http.MethodGet:
			t.Errorf("a quiet period sent %s %s", e.Method, e.Path)
		case strings.HasSuffix(e.Path, "/storageAccounts") || strings.HasSuffix(e.Path, "/resourcegroups") || strings.HasSuffix(e.Path, "/resourceGroups"):
			lists++
		default:
			gets++
			t.Logf("GET %s", e.Path)
		}
	}
	if lists < 2 || gets != 0 {
		t.Errorf("quiet passes: %d LISTs, %d GETs of single resources; want ≥ 2 and 0", lists, gets)
	}

	// Drift: a value changed in Azure is put back, for that account alone.
	changedID := armID("drift0", "Microsoft.Storage/storageAccounts/drift01")
	fa.ResetJournal()
	if err := fa.Mutate(changedID, func(body map[string]any) {
		body["properties"].(map[string]any)["accessTier"] = "Cool"
	}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "drift corrected", func() (bool, string) {
		return calls(fa, http.MethodPatch, changedID)+calls(fa, http.MethodPut, changedID) == 1, ""
	})
	for _, e := range fa.Journal() {
		if e.Method != http.MethodGet && e.Path != changedID {
			t.Errorf("correcting one account sent %s %s", e.Method, e.Path)
		}
		if e.Method == http.MethodGet && strings.Contains(e.Path, "/storageAccounts/") && !strings.HasPrefix(e.Path, changedID) {
			t.Errorf("correcting one account read another: %s", e.Path)
		}
	}

	// Deleted in Azure: created again.
	goneID := armID("drift1", "Microsoft.Storage/storageAccounts/drift12")
	if err := fa.Remove(goneID); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "deleted account created again", func() (bool, string) { return fa.Resource(goneID) != nil, "" })

	// A LIST that fails: each resource is read with its own GET.
	fa.ResetJournal()
	fa.SetFaults(fakearm.Faults{ErrorRate: 1, ErrorStatus: http.StatusForbidden, Methods: []string{http.MethodGet}, PathSuffix: "/providers/Microsoft.Storage/storageAccounts"})
	eventually(t, 15*time.Second, "a GET per account after the LIST failed", func() (bool, string) {
		n := 0
		for _, sa := range accounts {
			if calls(fa, http.MethodGet, armID(strings.TrimSuffix(sa.Object["spec"].(map[string]any)["owner"].(map[string]any)["name"].(string), ""), "Microsoft.Storage/storageAccounts/"+sa.GetName())) > 0 {
				n++
			}
		}
		return n == len(accounts), fmt.Sprint(n)
	})
}

// TestFinalizerFromAdmission: objects that arrive with the finalizer (the
// webhook adds it at create) converge with one metadata write each — the
// operation or last-applied record, which also carries a child's owner
// reference — and one status write: no finalizer write.
func TestFinalizerFromAdmission(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	rg := resourceGroup(ns, "team-a")
	sa := storageAccount(ns, "media01", "team-a")
	for _, o := range []*unstructured.Unstructured{rg, sa} {
		o.SetFinalizers([]string{core.Finalizer})
	}
	create(t, sa, rg)
	before := apiserverRequests(t)
	startOperator(t, fa, ns, reconciler.Config{})
	waitReady(t, rg, sa)
	time.Sleep(500 * time.Millisecond) // a write after Ready would show
	after := apiserverRequests(t)
	// Each: its claim and create intent, before its PUT; the end of a
	// synchronous PUT goes to status, and a long-running one is followed
	// from memory (the intent survives a restart).
	if got := after["PATCH"] - before["PATCH"]; got != 2 {
		t.Errorf("%v metadata writes for a group and an account, want 2 (the claims before the PUTs)", got)
	}
	if got := after["PATCH status"] - before["PATCH status"]; got != 2 {
		t.Errorf("%v status writes, want 2", got)
	}
	refs := get(t, sa).GetOwnerReferences()
	if len(refs) != 1 || refs[0].Kind != "ResourceGroup" || refs[0].UID != get(t, rg).GetUID() {
		t.Errorf("the account's owner references: %+v", refs)
	}
	if f := get(t, sa).GetFinalizers(); len(f) != 1 || f[0] != core.Finalizer {
		t.Errorf("finalizers %v", f)
	}
}
