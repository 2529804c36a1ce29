package reconciler_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/reconciler"
)

func TestPlanFor(t *testing.T) {
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{RetryAfter: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	c, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rg := "/subscriptions/s1/resourceGroups/plan"
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "storage.azure.armature.dev/v20230501", "kind": "StorageAccount",
		"metadata": map[string]any{"name": "planacct"},
		"spec": map[string]any{"owner": map[string]any{"armId": rg}, "location": "westeurope", "kind": "StorageV2",
			"sku": map[string]any{"name": "Standard_LRS"}, "properties": map[string]any{"accessTier": "Hot"}},
	}}
	d := &storage.StorageAccountDescriptor
	p, err := reconciler.PlanFor(ctx, c, d, obj, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != "create" || p.Verb != "PUT" || p.ID != rg+"/providers/Microsoft.Storage/storageAccounts/planacct" {
		t.Errorf("plan %+v", p)
	}
	if _, err := c.Put(ctx, rg, "2024-03-01", []byte(`{"location":"westeurope"}`)); err != nil {
		t.Fatal(err)
	}
	res, err := c.Put(ctx, p.ID, d.APIVersion, []byte(`{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"},"properties":{"accessTier":"Hot"}}`))
	for err == nil && !res.Done() {
		res, err = c.Poll(ctx, res.Token)
	}
	if err != nil {
		t.Fatal(err)
	}
	if p, err = reconciler.PlanFor(ctx, c, d, obj, "", ""); err != nil || p.Action != "none" {
		t.Errorf("in sync: %+v %v", p, err)
	}
	_ = unstructured.SetNestedField(obj.Object, "Cool", "spec", "properties", "accessTier")
	p, err = reconciler.PlanFor(ctx, c, d, obj, "", "")
	if err != nil || p.Action != "update" || p.Verb != "PATCH" {
		t.Fatalf("changed: %+v %v", p, err)
	}
	if got := p.Body["properties"].(map[string]any)["accessTier"]; got != "Cool" || len(p.Body) != 1 {
		t.Errorf("merge patch %v", p.Body)
	}
	writes := fa.Count("PUT") + fa.Count("PATCH")
	if _, err := reconciler.PlanFor(ctx, c, d, obj, "", ""); err != nil || fa.Count("PUT")+fa.Count("PATCH") != writes {
		t.Error("planning must not write")
	}
}
