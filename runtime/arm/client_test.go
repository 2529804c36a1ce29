package arm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/arm"
)

const (
	rg  = "/subscriptions/00000000-0000-0000-0000-0000000000c1/resourceGroups/arm-test"
	sa  = rg + "/providers/Microsoft.Storage/storageAccounts/armtest01"
	rgV = "2024-03-01"
	saV = "2023-05-01"
)

func setup(t *testing.T, o fakearm.Options, budget *arm.Budget) (*fakearm.Running, arm.Client) {
	t.Helper()
	o.RetryAfter = -1
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	c, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: fa.HTTPClient(), Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	return fa, c
}

func TestOperationsAndResume(t *testing.T) {
	_, c := setup(t, fakearm.Options{LROPolls: 2}, nil)
	ctx := context.Background()
	if _, err := c.Put(ctx, rg, rgV, []byte(`{"location":"westeurope"}`)); err != nil {
		t.Fatal(err)
	}
	res, err := c.Put(ctx, sa, saV, []byte(`{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Done() {
		t.Fatal("a storage account PUT is a long-running operation")
	}
	polls := 0
	for !res.Done() {
		polls++
		if res, err = c.Poll(ctx, res.Token); err != nil {
			t.Fatal(err)
		}
	}
	if polls != 3 || res.Body["id"] != sa {
		t.Errorf("after %d polls: %v", polls, res.Body["id"])
	}
	if _, err := c.Get(ctx, rg+"/providers/Microsoft.Storage/storageAccounts/none", saV); !arm.IsNotFound(err) {
		t.Errorf("missing resource: %v", err)
	}
	_, err = c.Put(ctx, sa, saV, []byte(`{"location":"northeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}`))
	var ae *arm.Error
	if !errors.As(err, &ae) || ae.Code != "PropertyChangeNotAllowed" || ae.Target != "location" || !arm.IsTerminal(err) {
		t.Errorf("create-only change: %v", err)
	}
	if res, err := c.Delete(ctx, sa+"x", saV); err != nil || res.Status != http.StatusNoContent {
		t.Errorf("deleting a missing resource succeeds: %v %v", res, err)
	}
}

// TestFinalAnswerWithOperationHeader: Network answers a PUT of an existing
// virtual network 200 with an Azure-AsyncOperation header and a body whose
// provisioningState is already Succeeded
// (test/recordings/Test_Networking_VirtualNetwork_CRUD.yaml #2). The
// answer is final: Put returns it, not an error about a finished poller.
func TestFinalAnswerWithOperationHeader(t *testing.T) {
	const vnet = rg + "/providers/Microsoft.Network/virtualNetworks/vn1"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Azure-AsyncOperation", "https://"+r.Host+"/subscriptions/x/providers/Microsoft.Network/locations/westus2/operations/1?api-version=2024-01-01")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"vn1","id":"` + vnet + `","properties":{"provisioningState":"Succeeded","addressSpace":{"addressPrefixes":["10.0.0.0/8"]},"subnets":[]}}`))
	}))
	defer srv.Close()
	c, err := arm.NewClient(arm.Options{Endpoint: srv.URL, Credential: arm.StaticToken("t"), Transport: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Put(context.Background(), vnet, "2024-01-01", []byte(`{"location":"westus2"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Done() || res.Status != http.StatusOK || res.Body["id"] != vnet {
		t.Errorf("Put = %+v, want the final 200 answer with its body", res)
	}
}
