package reconciler_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
)

// The tests in this file meet real ARM answers the emulator's own bodies
// never showed the reconciler: each plays an excerpt of a recording
// (testdata/recorded/*.yaml: interactions copied unchanged from
// test/recordings) through fakearm.Playback, which answers only with what
// Azure said.

// recordedSubscription is the subscription of every recording.
const recordedSubscription = "00000000-0000-0000-0000-000000000000"

// playRecorded serves an excerpt and starts the operator against it in a
// fresh namespace.
func playRecorded(t *testing.T, excerpt string) (*fakearm.Playback, string) {
	t.Helper()
	c, err := recording.LoadCassette(filepath.Join("testdata", "recorded", excerpt+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := fakearm.NewPlayback(c, apis.Descriptors())
	p.RetryAfter = "0"
	ep, err := fakearm.Serve(p, fakearm.StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ep.Close()
		if un := p.Unanswered(); len(un) > 0 {
			t.Errorf("requests without a recorded answer: %v", un)
		}
	})
	ns := namespace(t)
	mgr := envtestutil.NewManager(t, restCfg, scheme, ns)
	armClient, err := arm.NewClient(arm.Options{Endpoint: ep.URL, Credential: arm.StaticToken("test"), Transport: ep.HTTPClient(), MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Recordings hold no LISTs: resyncs are GETs (a resync is asked for by
	// changing the sync-period annotation).
	cfg := reconciler.Config{SubscriptionID: recordedSubscription, PollInterval: 50 * time.Millisecond, SyncPeriod: time.Hour, DriftByGET: true}
	if err := reconciler.SetupAll(mgr, armClient, apis.Descriptors(), cfg); err != nil {
		t.Fatal(err)
	}
	envtestutil.RunManager(t, mgr)
	return p, ns
}

// recordedObject builds the custom resource of a recorded first PUT body
// (name dropped; azureName and owner added).
func recordedObject(t *testing.T, p *fakearm.Playback, kind, apiVersion, ns, name, owner, pathSuffix string) *unstructured.Unstructured {
	t.Helper()
	for _, r := range p.Resources() {
		if !strings.HasSuffix(strings.ToLower(r.Path), strings.ToLower(pathSuffix)) {
			continue
		}
		var spec map[string]any
		if err := json.Unmarshal([]byte(r.FirstPUT), &spec); err != nil {
			t.Fatal(err)
		}
		delete(spec, "name")
		spec["azureName"] = r.Path[strings.LastIndex(r.Path, "/")+1:]
		if owner != "" {
			spec["owner"] = map[string]any{"name": owner}
		}
		o := cr(kind, apiVersion, ns, name, spec)
		if r.Deleted < 0 {
			o.SetAnnotations(map[string]string{core.AnnotationPolicy: string(core.PolicyDetachOnDelete)})
		}
		return o
	}
	t.Fatalf("the excerpt has no resource ending in %s", pathSuffix)
	return nil
}

// answered counts the requests of a method to a path ending in suffix.
func answered(p *fakearm.Playback, method, suffix string) int {
	n := 0
	for _, r := range p.Requests() {
		if r.Method == method && strings.HasSuffix(strings.ToLower(r.Path), strings.ToLower(suffix)) {
			n++
		}
	}
	return n
}

// TestRecordedSyncPUT: Key Vault answers the vault's PUT 200 at once, with
// provisioningState RegisteringDns and no operation header. The reconciler
// starts no operation, is not Ready while ARM says RegisteringDns, reads
// until ARM says Succeeded, and sends one PUT.
func TestRecordedSyncPUT(t *testing.T) {
	p, ns := playRecorded(t, "keyvault_sync_put")
	rg := recordedObject(t, p, "ResourceGroup", resourcesAPI, ns, "rg", "", "/resourceGroups/asotest-rg-mftgkw")
	kv := recordedObject(t, p, "Vault", "keyvault.azure.armature.dev/v20230701", ns, "kv", "rg", "/vaults/asotest-keyvault-ngmgjs")
	create(t, rg, kv)
	waitReady(t, rg, kv)
	// The create's intent (recorded before the PUT) may stay; no operation
	// (a resume token) is started.
	if a := get(t, kv).GetAnnotations()[core.AnnotationOperation]; strings.Contains(a, `"token"`) {
		t.Errorf("a synchronous PUT starts no operation: %s", a)
	}
	if n := answered(p, http.MethodPut, "/vaults/asotest-keyvault-ngmgjs"); n != 1 {
		t.Errorf("%d PUTs of the vault, want 1", n)
	}
	if n := answered(p, http.MethodGet, "/vaults/asotest-keyvault-ngmgjs"); n < 2 {
		t.Errorf("%d GETs of the vault: Ready before ARM said Succeeded (the first GET says RegisteringDns)", n)
	}
	if s, _, _ := unstructured.NestedString(get(t, kv).Object, "status", "properties", "provisioningState"); s != "Succeeded" {
		t.Errorf("status.properties.provisioningState %q", s)
	}
	if err := k8s.Delete(context.Background(), get(t, kv)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "vault deleted (DELETE 200)", func() (bool, string) {
		return k8s.Get(context.Background(), client.ObjectKeyFromObject(kv), get0(kv)) != nil, ""
	})
}

// TestRecordedNormalisationIsNotDrift: Redis reads back redisVersion "6"
// as "6.0.14" and maxmemory-delta "10" as "642". That is ARM's answer to
// the write, not drift: one PUT, Ready with a message naming the paths,
// and a resync sends no PUT either (before the fix, every observation sent
// one, forever).
func TestRecordedNormalisationIsNotDrift(t *testing.T) {
	p, ns := playRecorded(t, "redis_normalised")
	rg := recordedObject(t, p, "ResourceGroup", resourcesAPI, ns, "rg", "", "/resourceGroups/asotest-rg-hyymvm")
	cache := recordedObject(t, p, "Redis", "cache.azure.armature.dev/v20240301", ns, "cache", "rg", "/redis/asotest-redis1-zbvfwv")
	create(t, rg, cache)
	waitReady(t, rg, cache)
	_, _, msg := readyReason(get(t, cache))
	if !strings.Contains(msg, "properties.redisVersion") || !strings.Contains(msg, "properties.redisConfiguration.maxmemory-delta") {
		t.Errorf("Ready's message names the normalised paths: %q", msg)
	}
	// A resync: the same GET, no write. (The operator may still be writing
	// the object's status: retry the update on a conflict.)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := get(t, cache)
		a := cur.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[core.AnnotationSyncPeriod] = "2h"
		cur.SetAnnotations(a)
		return k8s.Update(context.Background(), cur)
	}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the resync GET", func() (bool, string) {
		return answered(p, http.MethodGet, "/redis/asotest-redis1-zbvfwv") >= 2, ""
	})
	time.Sleep(300 * time.Millisecond)
	if n := answered(p, http.MethodPut, "/redis/asotest-redis1-zbvfwv"); n != 1 {
		t.Errorf("%d PUTs of the cache, want 1: ARM's normalisation was corrected as drift", n)
	}
}

// TestDriftIsStillCorrected: a value changed in Azure after the operator
// looked is drift, and corrected (against the emulator: no recording
// changes a resource behind the client's back). Observed by GET here;
// TestDriftObserver shows the same by LIST.
func TestDriftIsStillCorrected(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{DriftByGET: true})
	rg := resourceGroup(ns, "drift")
	sa := storageAccount(ns, "drift01", "drift")
	create(t, rg, sa)
	waitReady(t, rg, sa)
	saID := armID("drift", "Microsoft.Storage/storageAccounts/drift01")
	// Someone sets accessTier Cool in Azure.
	cl := fa.HTTPClient()
	req, _ := http.NewRequest(http.MethodPatch, fa.URL+saID+"?api-version=2023-05-01", strings.NewReader(`{"properties":{"accessTier":"Cool"}}`))
	req.Header.Set("Authorization", "Bearer x")
	req.Header.Set("Content-Type", "application/json")
	resp, err := cl.Do(req)
	if err != nil || resp.StatusCode >= 300 {
		t.Fatalf("out-of-band PATCH: %v %v", resp, err)
	}
	_ = resp.Body.Close()
	cur := get(t, sa)
	a := cur.GetAnnotations()
	a[core.AnnotationSyncPeriod] = "2h" // a resync
	cur.SetAnnotations(a)
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "accessTier corrected back to Hot", func() (bool, string) {
		tier, _, _ := unstructured.NestedString(fa.Resource(saID), "properties", "accessTier")
		return tier == "Hot", tier
	})
}

// TestRecordedDelete204: Storage answers a queue's DELETE 204 No Content
// (and its GET then 404 QueueNotFound): the deletion completes at once.
func TestRecordedDelete204(t *testing.T) {
	p, ns := playRecorded(t, "queue_delete_204")
	rg := recordedObject(t, p, "ResourceGroup", resourcesAPI, ns, "rg", "", "/resourceGroups/asotest-rg-ioycvi")
	sa := recordedObject(t, p, "StorageAccount", storageAPI, ns, "acct", "rg", "/storageAccounts/asoteststorhvxypi")
	qs := recordedObject(t, p, "StorageAccountsQueueService", storageAPI, ns, "acct-queues", "acct", "/queueServices/default")
	q := recordedObject(t, p, "StorageAccountsQueueServicesQueue", storageAPI, ns, "queue", "acct-queues", "/queues/asotest-queue-hcqdah")
	create(t, rg, sa, qs, q)
	waitReady(t, rg, sa, qs, q)
	if err := k8s.Delete(context.Background(), get(t, q)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "queue deleted (DELETE 204)", func() (bool, string) {
		return k8s.Get(context.Background(), client.ObjectKeyFromObject(q), get0(q)) != nil, ""
	})
	if n := answered(p, http.MethodDelete, "/queues/asotest-queue-hcqdah"); n != 1 {
		t.Errorf("%d DELETEs of the queue, want 1", n)
	}
}

// TestRecordedConflictOnPUTIsRetried: ARM answers a resource group's PUT
// 409 ResourceGroupBeingDeleted while a group of that name is still being
// deleted; the operator retries (a 409 is not the user's to fix) and the
// next PUT creates it.
func TestRecordedConflictOnPUTIsRetried(t *testing.T) {
	p, ns := playRecorded(t, "group_being_deleted")
	rg := recordedObject(t, p, "ResourceGroup", resourcesAPI, ns, "rg", "", "/resourceGroups/asotest-rg-essitz")
	create(t, rg)
	waitReady(t, rg)
	if n := answered(p, http.MethodPut, "/resourceGroups/asotest-rg-essitz"); n != 2 {
		t.Errorf("%d PUTs, want 2 (409, then 201)", n)
	}
	if err := k8s.Delete(context.Background(), get(t, rg)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "group deleted", func() (bool, string) {
		return k8s.Get(context.Background(), client.ObjectKeyFromObject(rg), get0(rg)) != nil, ""
	})
}
