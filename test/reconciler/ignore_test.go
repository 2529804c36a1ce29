package reconciler_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// TestIgnoreChanges: spec.operatorSpec.ignoreChanges [tags]: the tags go
// with the create; tags Azure Policy changes are never corrected and cause
// no write (the Ready condition reports them); a spec edit of the tags
// alone sends nothing; a change of a path not ignored is corrected, and its
// PATCH carries no tags.
func TestIgnoreChanges(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{SyncPeriod: time.Second, FirstObservation: 500 * time.Millisecond, Jitter: 0.01, ReadAfterWrite: time.Second})
	rg := resourceGroup(ns, "ignore")
	sa := storageAccount(ns, "ignore01", "ignore")
	spec := sa.Object["spec"].(map[string]any)
	spec["tags"] = map[string]any{"costCenter": "1"}
	spec["operatorSpec"] = map[string]any{"ignoreChanges": []any{"tags"}}
	create(t, rg, sa)
	waitReady(t, rg, sa)
	id := armID("ignore", "Microsoft.Storage/storageAccounts/ignore01")
	puts := journalBodies(fa, http.MethodPut, id)
	if len(puts) != 1 || !strings.Contains(puts[0], `"costCenter":"1"`) || strings.Contains(puts[0], "operatorSpec") {
		t.Fatalf("create PUTs %q: want one, with the tags and without operatorSpec", puts)
	}

	// Azure Policy writes tags: reported, not corrected, no write.
	fa.ResetJournal()
	if err := fa.Mutate(id, func(body map[string]any) {
		body["tags"] = map[string]any{"costCenter": "2", "policy": "enforced"}
	}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "ignored drift reported", func() (bool, string) {
		s, _, msg := readyReason(get(t, sa))
		return s == "True" && strings.Contains(msg, "Azure differs from spec at tags: ignored (spec.operatorSpec.ignoreChanges), not corrected"), msg
	})
	time.Sleep(3 * time.Second) // more observation passes
	if n := calls(fa, http.MethodPatch, id) + calls(fa, http.MethodPut, id); n != 0 {
		t.Errorf("%d writes after Azure changed an ignored path, want 0", n)
	}

	// A spec edit of the ignored path alone: nothing is sent.
	cur := get(t, sa)
	_ = unstructured.SetNestedField(cur.Object, "3", "spec", "tags", "costCenter")
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if n := calls(fa, http.MethodPatch, id) + calls(fa, http.MethodPut, id); n != 0 {
		t.Errorf("%d writes after a spec edit of an ignored path, want 0", n)
	}
	if tags := fa.Resource(id)["tags"].(map[string]any); tags["costCenter"] != "2" {
		t.Errorf("Azure's tags %v: the ignored path was written", tags)
	}

	// A path not ignored is corrected, and its PATCH leaves the tags alone.
	if err := fa.Mutate(id, func(body map[string]any) {
		body["properties"].(map[string]any)["accessTier"] = "Cool"
	}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "drift at accessTier corrected", func() (bool, string) {
		return calls(fa, http.MethodPatch, id)+calls(fa, http.MethodPut, id) >= 1, ""
	})
	for _, b := range append(journalBodies(fa, http.MethodPatch, id), journalBodies(fa, http.MethodPut, id)...) {
		if strings.Contains(b, "tags") || strings.Contains(b, "operatorSpec") {
			t.Errorf("correcting accessTier sent %s: the ignored tags went with it", b)
		}
	}
	eventually(t, 15*time.Second, "accessTier back to Hot", func() (bool, string) {
		props, _ := fa.Resource(id)["properties"].(map[string]any)
		return props["accessTier"] == "Hot", ""
	})
	if tags := fa.Resource(id)["tags"].(map[string]any); tags["costCenter"] != "2" || tags["policy"] != "enforced" {
		t.Errorf("Azure's tags %v after the correction, want Azure Policy's", tags)
	}
}

// journalBodies returns the bodies of the journal's requests of method on
// id.
func journalBodies(fa *fakearm.Running, method, id string) []string {
	var out []string
	for _, e := range fa.Journal() {
		if e.Method == method && strings.EqualFold(e.Path, id) {
			out = append(out, e.Body)
		}
	}
	return out
}
