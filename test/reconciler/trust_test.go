package reconciler_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/reconciler"
)

const sqlAPI = "sql.azure.armature.dev/v20211101"

// TestSecretRotation: a Secret a spec references is watched (by its
// metadata): rotating it sends the new value to ARM within seconds, with
// no change of the object, and nothing before.
func TestSecretRotation(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sql-admin"}, Data: map[string][]byte{"password": []byte("first-Passw0rd!")}}
	if err := k8s.Create(context.Background(), sec); err != nil {
		t.Fatal(err)
	}
	rg := resourceGroup(ns, "rotation")
	srv := cr("Server", sqlAPI, ns, "rotation-sql", map[string]any{
		"owner": map[string]any{"name": "rotation"}, "location": "westeurope",
		"properties": map[string]any{"administratorLogin": "sqladmin", "administratorLoginPassword": map[string]any{"name": "sql-admin", "key": "password"}},
	})
	create(t, rg, srv)
	waitReady(t, rg, srv)
	id := armID("rotation", "Microsoft.Sql", "servers", "rotation-sql")
	writes := func() int { return calls(fa, http.MethodPut, id) + calls(fa, http.MethodPatch, id) }
	before := writes()
	time.Sleep(time.Second)
	if n := writes(); n != before {
		t.Fatalf("%d writes with nothing changed", n-before)
	}
	cur := &corev1.Secret{}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(sec), cur); err != nil {
		t.Fatal(err)
	}
	cur.Data["password"] = []byte("second-Passw0rd!")
	rotated := time.Now()
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "the rotated password sent to ARM", func() (bool, string) {
		return writes() > before, ""
	})
	t.Logf("rotated password written to ARM %s after the Secret's update", time.Since(rotated).Round(10*time.Millisecond))
	if n := writes() - before; n != 1 {
		t.Errorf("%d writes after one rotation, want 1", n)
	}
	for _, e := range fa.Journal() {
		if strings.Contains(e.Body, "Passw0rd") {
			t.Errorf("the emulator's journal holds the password: %s %s", e.Method, e.Path)
		}
	}
	u := get(t, srv)
	for k, v := range u.GetAnnotations() {
		if strings.Contains(v, "Passw0rd") {
			t.Errorf("annotation %s holds the password", k)
		}
	}
}

// TestNoSilentTakeover: a resource that exists in Azure and that no object
// created is never written nor deleted by an object that names it; two
// objects naming one ARM id: the later is ClaimedByAnotherObject.
func TestNoSilentTakeover(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	// Team B's group, made outside this operator (another namespace, the
	// portal): it exists in Azure.
	c, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("team-b"), Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	theirs := armID("team-b")
	if _, err := c.Put(context.Background(), theirs, "2024-03-01", []byte(`{"location":"westeurope","tags":{"team":"b"}}`)); err != nil {
		t.Fatal(err)
	}
	startOperator(t, fa, ns, reconciler.Config{})
	taker := resourceGroup(ns, "team-b")
	create(t, taker)
	waitReason(t, taker, core.ReasonAzureResourceExists)
	_, _, msg := readyReason(get(t, taker))
	if !strings.Contains(msg, "spec.resourceID") {
		t.Errorf("message %q does not say how to adopt", msg)
	}
	if n := calls(fa, http.MethodPut, theirs); n != 1 {
		t.Errorf("%d PUTs of the group, want only its owner's", n)
	}
	if err := k8s.Delete(context.Background(), get(t, taker)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the object gone", func() (bool, string) {
		return k8s.Get(context.Background(), client.ObjectKeyFromObject(taker), &unstructured.Unstructured{Object: map[string]any{"apiVersion": resourcesAPI, "kind": "ResourceGroup"}}) != nil, ""
	})
	if n := calls(fa, http.MethodDelete, theirs); n != 0 {
		t.Errorf("deleting the object sent %d DELETEs of a group it never created", n)
	}

	// Two objects, one ARM id: the second waits, ClaimedByAnotherObject.
	first := resourceGroup(ns, "shared-a")
	first.Object["spec"].(map[string]any)["azureName"] = "shared"
	create(t, first)
	waitReady(t, first)
	second := resourceGroup(ns, "shared-b")
	second.Object["spec"].(map[string]any)["azureName"] = "shared"
	create(t, second)
	waitReason(t, second, core.ReasonClaimedByAnotherObject)
	if _, _, msg := readyReason(get(t, second)); !strings.Contains(msg, ns+"/shared-a") {
		t.Errorf("message %q does not name the first object", msg)
	}
	if n := calls(fa, http.MethodPut, armID("shared")); n != 1 {
		t.Errorf("%d PUTs of the shared group, want 1", n)
	}
	if err := k8s.Delete(context.Background(), get(t, second)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the second object gone", func() (bool, string) {
		return k8s.Get(context.Background(), client.ObjectKeyFromObject(second), &unstructured.Unstructured{Object: map[string]any{"apiVersion": resourcesAPI, "kind": "ResourceGroup"}}) != nil, ""
	})
	if n := calls(fa, http.MethodDelete, armID("shared")); n != 0 {
		t.Errorf("deleting the second object sent %d DELETEs of the first one's group", n)
	}
}

// TestWritesPerGenerationUnderFaults: ARM writes of one generation under
// the faults that made the operator loop. Each figure is logged.
func TestWritesPerGenerationUnderFaults(t *testing.T) {
	t.Run("OperationLostResourceThere", func(t *testing.T) {
		// Every poll of an operation answers 404: the resource is read,
		// and it is there.
		fa := startARM(t, 2)
		fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodGet, PathContains: "/asyncoperations/", Status: http.StatusNotFound, Code: "NotFound"})
		ns := namespace(t)
		startOperator(t, fa, ns, reconciler.Config{})
		rg, sa := resourceGroup(ns, "lost"), storageAccount(ns, "lostop01", "lost")
		create(t, rg, sa)
		waitReady(t, rg, sa)
		time.Sleep(2 * time.Second)
		id := armID("lost", "Microsoft.Storage", "storageAccounts", "lostop01")
		n := calls(fa, http.MethodPut, id)
		t.Logf("poll answered 404, resource there: %d PUT in one generation", n)
		if n != 1 {
			t.Errorf("%d PUTs, want 1", n)
		}
	})
	t.Run("OperationLostResourceGone", func(t *testing.T) {
		// Every poll answers 404 and so does every GET of the account: the
		// write is retried with backoff, at most MaxWritesPerGeneration
		// times. The create is long-running; the PUTs after it update the
		// account the emulator holds, which ARM answers at once (200, no
		// operation: Test_Storage_StorageAccount_20230101_SecretsFromAzure
		// #6 and 6 more), so a 404 on GET is ARM's read-after-write lag
		// until ReadAfterWrite has passed, then the account is gone.
		fa := startARM(t, 2)
		fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodGet, PathContains: "/asyncoperations/", Status: http.StatusNotFound, Code: "NotFound"})
		fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodGet, PathContains: "/storageAccounts/gone01", Status: http.StatusNotFound, Code: "ResourceNotFound"})
		ns := namespace(t)
		startOperator(t, fa, ns, reconciler.Config{RetryBackoff: reconciler.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}, MaxWritesPerGeneration: 5, ReadAfterWrite: 300 * time.Millisecond})
		rg, sa := resourceGroup(ns, "gone"), storageAccount(ns, "gone01", "gone")
		create(t, rg, sa)
		waitReady(t, rg)
		waitReason(t, sa, core.ReasonWriteLoop)
		time.Sleep(3 * time.Second)
		id := armID("gone", "Microsoft.Storage", "storageAccounts", "gone01")
		n := calls(fa, http.MethodPut, id)
		t.Logf("poll and GET answered 404: %d PUTs in one generation, then %s", n, core.ReasonWriteLoop)
		if n != 5 {
			t.Errorf("%d PUTs, want 5 (MaxWritesPerGeneration)", n)
		}
	})
	t.Run("BodyOverTheAnnotationLimit", func(t *testing.T) {
		// A deployment whose template is larger than all of an object's
		// annotations may be (256 KiB): its record is a digest.
		fa := startARM(t, 1)
		ns := namespace(t)
		startOperator(t, fa, ns, reconciler.Config{})
		big := make([]byte, 150<<10)
		_, _ = rand.Read(big)
		rg := resourceGroup(ns, "big")
		dep := cr("Deployment", resourcesAPI, ns, "big-template", map[string]any{
			"owner": map[string]any{"name": "big"},
			"properties": map[string]any{"mode": "Incremental", "template": map[string]any{
				"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#", "contentVersion": "1.0.0.0",
				"resources": []any{}, "variables": map[string]any{"blob": hex.EncodeToString(big)},
			}},
		})
		create(t, rg, dep)
		waitReady(t, rg, dep)
		time.Sleep(2 * time.Second)
		n := calls(fa, http.MethodPut, armID("big")+"/providers/Microsoft.Resources/deployments/big-template")
		t.Logf("a 300 KiB template: %d PUT (record: %.12s…)", n, get(t, dep).GetAnnotations()[core.AnnotationOperation]+get(t, dep).GetAnnotations()[core.AnnotationLastApplied])
		if n != 1 {
			t.Errorf("%d PUTs of the deployment, want 1", n)
		}
	})
}
