package reconciler_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/runtime/reconciler"
)

const identityAPI = "managedidentity.azure.armature.dev/v20230131"

// TestValuesFromTracked: an identity's tag comes from a storage account's
// status (spec.valuesFrom). Applied first, the identity waits
// (WaitingForReference, nothing sent); once the account has the value, it
// is sent. When the account's status changes later, the identity is
// re-rendered at once — tracked, not at the next sync period (15 minutes
// here). Deleted together, the account's DELETE waits for the identity's.
func TestValuesFromTracked(t *testing.T) {
	fa := startARM(t, 2)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{SyncPeriod: 15 * time.Minute})
	reader := cr("UserAssignedIdentity", identityAPI, ns, "reader", map[string]any{
		"owner": map[string]any{"name": "team-vf"}, "location": "westeurope",
		"valuesFrom": []any{map[string]any{"path": "tags.tier",
			"from": map[string]any{"kind": "StorageAccount", "name": "src", "field": "status.properties.accessTier"}}},
	})
	create(t, resourceGroup(ns, "team-vf"), reader)
	waitReason(t, reader, "WaitingForReference")
	readerID := armID("team-vf", "Microsoft.ManagedIdentity/userAssignedIdentities/reader")
	if n := calls(fa, http.MethodPut, readerID); n != 0 {
		t.Fatalf("%d PUTs of the identity before its source exists", n)
	}
	src := storageAccount(ns, "src", "team-vf")
	src.Object["spec"].(map[string]any)["azureName"] = "teamvfsrc01"
	create(t, src)
	waitReady(t, src, reader)
	tier := func() string {
		res := fa.Resource(readerID)
		tags, _ := res["tags"].(map[string]any)
		s, _ := tags["tier"].(string)
		return s
	}
	if got := tier(); got != "Hot" {
		t.Fatalf("the identity's tag in ARM is %q, want Hot (the account's accessTier)", got)
	}

	// The source changes: the reader follows, long before a sync period.
	cur := get(t, src)
	cur.Object["spec"].(map[string]any)["properties"].(map[string]any)["accessTier"] = "Cool"
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	eventually(t, 30*time.Second, "the identity's tag follows the account's accessTier", func() (bool, string) {
		return tier() == "Cool", "tag " + tier()
	})
	t.Logf("re-rendered %v after the source's spec changed", time.Since(start).Round(time.Millisecond))

	// Deleted together: the source waits for its reader.
	fa.ResetJournal()
	for _, o := range []*unstructured.Unstructured{src, reader} {
		if err := k8s.Delete(context.Background(), get(t, o)); err != nil {
			t.Fatal(err)
		}
	}
	srcID := armID("team-vf", "Microsoft.Storage/storageAccounts/teamvfsrc01")
	eventually(t, 60*time.Second, "both gone from ARM", func() (bool, string) {
		return fa.Resource(srcID) == nil && fa.Resource(readerID) == nil, ""
	})
	var order []string
	for _, e := range fa.Journal() {
		if e.Method == http.MethodDelete && e.Status < 300 {
			order = append(order, e.Path[strings.LastIndex(e.Path, "/")+1:])
		}
	}
	if fmt.Sprint(order) != "[reader teamvfsrc01]" {
		t.Errorf("DELETE order %v: the identity that reads the account goes first", order)
	}
}
