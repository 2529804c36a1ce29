package webhook

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/api/core"
	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	contoso "github.com/armature-dev/armature/generator/testdata/contoso/expected/apis/contoso/v20240101preview"
	hook "github.com/armature-dev/armature/webhook"
)

const (
	// denied is how the apiserver prefixes the validating webhook's message.
	denied = `admission webhook "validate.armature.dev" denied the request: `
	// locationMessage is what a user sees from the webhook for the edit of
	// the issue.
	locationMessage = `spec.location: Forbidden: field is create-only (was "westeurope", now "northeurope"); delete and recreate the resource to change it`
	// celLocation is what a user sees from the CRD's CEL rule for it (the
	// rule carries reason FieldValueForbidden).
	celLocation = `StorageAccount.storage.azure.armature.dev "media" is invalid: spec.location: Forbidden: ` +
		`spec.location is create-only: it cannot be added, changed or removed after creation; delete and recreate the resource to change it`
	nicSKU = "spec.properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations[0].properties.ipConfigurations[0].properties.publicIPAddressConfiguration.sku.name"
)

// verdict is the outcome of one edit, dry-run and for real.
type verdict struct {
	DryRun, Real string
}

// errText renders an error, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// editAccount applies fn to the stored StorageAccount and updates it,
// first as a server-side dry run, then for real, and checks that the dry
// run left the object alone.
func editAccount(t *testing.T, cl client.Client, ns, name string, fn func(*storage.StorageAccount)) verdict {
	t.Helper()
	ctx := context.Background()
	get := func() *storage.StorageAccount {
		sa := &storage.StorageAccount{}
		if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, sa); err != nil {
			t.Fatal(err)
		}
		return sa
	}
	before := get()
	sa := before.DeepCopy()
	fn(sa)
	var v verdict
	v.DryRun = errText(cl.Update(ctx, sa, client.DryRunAll))
	if after := get(); after.ResourceVersion != before.ResourceVersion {
		t.Errorf("the dry run changed the stored object: resourceVersion %s → %s", before.ResourceVersion, after.ResourceVersion)
	}
	sa = before.DeepCopy()
	fn(sa)
	v.Real = errText(cl.Update(ctx, sa))
	return v
}

// create creates an object.
func create(t *testing.T, cl client.Client, obj client.Object) {
	t.Helper()
	if err := cl.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

// vmssYAML has two named network interface configurations with a
// create-only public IP sku inside arrays, which no CEL rule reaches.
// (The sku of nic-a and nic-b differ on purpose: see editNICs.)
const vmssYAML = `
apiVersion: compute.azure.armature.dev/v20240301
kind: VirtualMachineScaleSet
metadata: {name: web}
spec:
  owner: {name: team-a-rg}
  location: westeurope
  properties:
    virtualMachineProfile:
      osProfile:
        computerNamePrefix: web
        adminUsername: azureuser
        adminPassword: {name: web-secrets, key: adminPassword}
      networkProfile:
        networkInterfaceConfigurations:
        - name: nic-a
          properties:
            primary: true
            ipConfigurations:
            - {name: ip-a, properties: {publicIPAddressConfiguration: {name: pip-a, sku: {name: Standard}}}}
        - name: nic-b
          properties:
            ipConfigurations:
            - {name: ip-b, properties: {publicIPAddressConfiguration: {name: pip-b, sku: {name: Basic}}}}
`

func vmss(t *testing.T, ns string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(vmssYAML), &u.Object); err != nil {
		t.Fatal(err)
	}
	u.SetNamespace(ns)
	return u
}

// editNICs swaps the two NICs and changes nic-b's create-only sku from
// Basic to nic-a's Standard: paired by name the change is at index 0;
// paired by index it would be reported at index 1.
func editNICs(t *testing.T, cl client.Client, ns string) verdict {
	t.Helper()
	ctx := context.Background()
	u := vmss(t, ns)
	if err := cl.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
		t.Fatal(err)
	}
	path := []string{"spec", "properties", "virtualMachineProfile", "networkProfile", "networkInterfaceConfigurations"}
	nics, _, err := unstructured.NestedSlice(u.Object, path...)
	if err != nil || len(nics) != 2 {
		t.Fatalf("NICs: %v %v", nics, err)
	}
	nicB := nics[1].(map[string]any)
	ipc := nicB["properties"].(map[string]any)["ipConfigurations"].([]any)[0].(map[string]any)
	ipc["properties"].(map[string]any)["publicIPAddressConfiguration"].(map[string]any)["sku"] = map[string]any{"name": "Standard"}
	if err := unstructured.SetNestedSlice(u.Object, []any{nicB, nics[0]}, path...); err != nil {
		t.Fatal(err)
	}
	var v verdict
	v.DryRun = errText(cl.Update(ctx, u.DeepCopy(), client.DryRunAll))
	v.Real = errText(cl.Update(ctx, u))
	return v
}

// TestWebhookAndCEL runs the webhook with the CRDs as generated: what a
// cluster runs.
func TestWebhookAndCEL(t *testing.T) {
	e := start(t, setup{webhook: true, cel: true})
	ctx := context.Background()

	t.Run("CreateDefaultsAzureName", func(t *testing.T) {
		ns := namespace(t, e.cl, "defaults")
		sa := account(ns, "media")
		sa.Spec.AzureName = ""
		create(t, e.cl, sa)
		got := &storage.StorageAccount{}
		if err := e.cl.Get(ctx, client.ObjectKeyFromObject(sa), got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff("media", got.Spec.AzureName); diff != "" {
			t.Errorf("stored azureName -want +got:\n%s", diff)
		}
	})

	t.Run("CreateOnlyRefused", func(t *testing.T) {
		// The apiserver runs the CRD's CEL rules before validating
		// webhooks: with both installed the user sees the CEL message.
		ns := namespace(t, e.cl, "create-only")
		create(t, e.cl, account(ns, "media"))
		got := editAccount(t, e.cl, ns, "media", func(sa *storage.StorageAccount) { sa.Spec.Location = ptr("northeurope") })
		if diff := cmp.Diff(verdict{DryRun: celLocation, Real: celLocation}, got); diff != "" {
			t.Errorf("-want +got:\n%s", diff)
		}
	})

	t.Run("WritableAccepted", func(t *testing.T) {
		ns := namespace(t, e.cl, "writable")
		create(t, e.cl, account(ns, "media"))
		got := editAccount(t, e.cl, ns, "media", func(sa *storage.StorageAccount) {
			sa.Spec.Properties.AccessTier = ptr(storage.AccessTier_Cool)
			sa.Spec.Tags = map[string]string{"team": "a"}
		})
		if diff := cmp.Diff(verdict{}, got); diff != "" {
			t.Errorf("-want +got:\n%s", diff)
		}
	})

	t.Run("CreateOnlyInsideArraysByName", func(t *testing.T) {
		ns := namespace(t, e.cl, "vmss")
		create(t, e.cl, vmss(t, ns))
		msg := denied + nicSKU + `: Forbidden: field is create-only (was "Basic", now "Standard"); delete and recreate the resource to change it`
		if diff := cmp.Diff(verdict{DryRun: msg, Real: msg}, editNICs(t, e.cl, ns)); diff != "" {
			t.Errorf("-want +got:\n%s", diff)
		}
	})

	t.Run("NameThatClimbsRefused", func(t *testing.T) {
		// The issue: ../ in azureName put the resource into another group.
		ns := namespace(t, e.cl, "names")
		sa := account(ns, "media")
		sa.Spec.AzureName = "../other-rg"
		msg := denied + `spec.azureName: Invalid value: "../other-rg": must not contain '/': it is no part of one segment of an ARM resource id`
		if diff := cmp.Diff(msg, errText(e.cl.Create(ctx, sa))); diff != "" {
			t.Errorf("-want +got:\n%s", diff)
		}
	})

	t.Run("OperatorFieldsOnceInAzure", func(t *testing.T) {
		ns := namespace(t, e.cl, "operator-fields")
		create(t, e.cl, account(ns, "media"))
		rename := func(sa *storage.StorageAccount) { sa.Spec.AzureName = "media2" }
		if diff := cmp.Diff(verdict{}, editAccount(t, e.cl, ns, "media", rename)); diff != "" {
			t.Errorf("before status.id: -want +got:\n%s", diff)
		}
		sa := &storage.StorageAccount{}
		if err := e.cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: "media"}, sa); err != nil {
			t.Fatal(err)
		}
		sa.Status.Id = ptr("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/team-a-rg/providers/Microsoft.Storage/storageAccounts/media2")
		if err := e.cl.Status().Update(ctx, sa); err != nil {
			t.Fatal(err)
		}
		got := []verdict{
			editAccount(t, e.cl, ns, "media", func(sa *storage.StorageAccount) { sa.Spec.AzureName = "media3" }),
			editAccount(t, e.cl, ns, "media", func(sa *storage.StorageAccount) { sa.Spec.Owner = &core.ResourceReference{Name: "other-rg"} }),
		}
		name := denied + `spec.azureName: Forbidden: field cannot change once the resource exists in Azure (status.id is set; was "media2", now "media3"); delete and recreate the custom resource to change it`
		owner := denied + `spec.owner: Forbidden: field cannot change once the resource exists in Azure (status.id is set; was {"name":"team-a-rg"}, now {"name":"other-rg"}); delete and recreate the custom resource to change it`
		if diff := cmp.Diff([]verdict{{name, name}, {owner, owner}}, got); diff != "" {
			t.Errorf("after status.id: -want +got:\n%s", diff)
		}
	})
}

// TestWebhookAloneBlocks strips every CEL rule from the CRDs: the webhook
// alone refuses the create-only edit, with the message of the issue.
func TestWebhookAloneBlocks(t *testing.T) {
	e := start(t, setup{webhook: true, cel: false})
	ns := namespace(t, e.cl, "webhook-alone")
	create(t, e.cl, account(ns, "media"))
	got := map[string]verdict{
		"location":     editAccount(t, e.cl, ns, "media", func(sa *storage.StorageAccount) { sa.Spec.Location = ptr("northeurope") }),
		"isHnsEnabled": editAccount(t, e.cl, ns, "media", func(sa *storage.StorageAccount) { sa.Spec.Properties.IsHnsEnabled = nil }),
		"accessTier":   editAccount(t, e.cl, ns, "media", func(sa *storage.StorageAccount) { sa.Spec.Properties.AccessTier = ptr(storage.AccessTier_Cool) }),
	}
	hns := denied + `spec.properties.isHnsEnabled: Forbidden: field is create-only (was true, now unset); delete and recreate the resource to change it`
	want := map[string]verdict{
		"location":     {DryRun: denied + locationMessage, Real: denied + locationMessage},
		"isHnsEnabled": {DryRun: hns, Real: hns},
		"accessTier":   {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}

// TestCELAloneBlocks installs no webhook: the CRD's CEL rule alone refuses
// the create-only edit. Create-only values inside arrays are beyond CEL's
// generated rules: that edit goes through, which is why the webhook exists.
func TestCELAloneBlocks(t *testing.T) {
	e := start(t, setup{webhook: false, cel: true})
	ctx := context.Background()
	ns := namespace(t, e.cl, "cel-alone")
	sa := account(ns, "media")
	sa.Spec.AzureName = ""
	create(t, e.cl, sa)
	if err := e.cl.Get(ctx, client.ObjectKeyFromObject(sa), sa); err != nil {
		t.Fatal(err)
	}
	if sa.Spec.AzureName != "" {
		t.Fatalf("azureName = %q without a webhook: this environment is not what it claims", sa.Spec.AzureName)
	}
	create(t, e.cl, vmss(t, ns))
	got := map[string]verdict{
		"location":   editAccount(t, e.cl, ns, "media", func(sa *storage.StorageAccount) { sa.Spec.Location = ptr("northeurope") }),
		"accessTier": editAccount(t, e.cl, ns, "media", func(sa *storage.StorageAccount) { sa.Spec.Properties.AccessTier = ptr(storage.AccessTier_Cool) }),
		"nicSKU":     editNICs(t, e.cl, ns),
	}
	want := map[string]verdict{
		"location":   {DryRun: celLocation, Real: celLocation},
		"accessTier": {},
		"nicSKU":     {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}

// TestMetadataOnlyUpdatesSkipTheWebhook: the apiserver evaluates the
// webhooks' match condition (webhook.SpecChangedCondition) and does not
// call them for an update that leaves spec alone — the operator's
// finalizer and annotation writes — while creates and spec changes are
// still defaulted and validated.
func TestMetadataOnlyUpdatesSkipTheWebhook(t *testing.T) {
	var calls atomic.Int64
	gvk := storage.GroupVersion.WithKind("StorageAccount")
	e := start(t, setup{webhook: true, cel: true, opts: []hook.Option{hook.WithDefaulter(gvk, func(context.Context, hook.Attributes) error {
		calls.Add(1)
		return nil
	})}})
	ctx := context.Background()
	ns := namespace(t, e.cl, "skip")
	sa := account(ns, "media")
	before := calls.Load()
	if err := e.cl.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	if calls.Load() == before {
		t.Fatal("a create must be defaulted by the webhook")
	}
	before = calls.Load()
	controllerutil.AddFinalizer(sa, "armature.dev/finalizer")
	sa.SetAnnotations(map[string]string{"armature.dev/operation": `{"verb":"PUT"}`})
	if err := e.cl.Update(ctx, sa); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load() - before; n != 0 {
		t.Errorf("a metadata-only update called the defaulting webhook %d times, want 0", n)
	}
	sa.Spec.Properties.AccessTier = ptr(storage.AccessTier_Cool)
	if err := e.cl.Update(ctx, sa); err != nil {
		t.Fatal(err)
	}
	if calls.Load() == before {
		t.Error("a spec change must still be defaulted by the webhook")
	}
}

// TestPolicyAnnotation: the apiserver sends a change of the
// reconcile-policy annotation alone to the validating webhook (match
// condition webhook.SpecOrPolicyChangedCondition), which refuses an
// unknown policy at create and at such an update.
func TestPolicyAnnotation(t *testing.T) {
	e := start(t, setup{webhook: true, cel: true})
	ctx := context.Background()
	ns := namespace(t, e.cl, "policy")
	typo := account(ns, "typo")
	typo.SetAnnotations(map[string]string{core.AnnotationPolicy: "detach-on-delete "})
	err := e.cl.Create(ctx, typo)
	want := denied + `metadata.annotations[armature.dev/reconcile-policy]: Unsupported value: "detach-on-delete ": supported values: "manage", "skip", "detach-on-delete", "plan"`
	if got := errText(err); !strings.Contains(got, want) {
		t.Errorf("create with a typo'd policy: %q, want it to contain %q", got, want)
	}
	sa := account(ns, "media")
	sa.SetAnnotations(map[string]string{core.AnnotationPolicy: "skip"})
	create(t, e.cl, sa)
	sa.SetAnnotations(map[string]string{core.AnnotationPolicy: "Skip"})
	if err := e.cl.Update(ctx, sa); err == nil || !strings.Contains(err.Error(), `Unsupported value: "Skip"`) {
		t.Errorf("an annotation-only update to an unknown policy: %v, want refused", err)
	}
	sa.SetAnnotations(map[string]string{core.AnnotationPolicy: "detach-on-delete"})
	if err := e.cl.Update(ctx, sa); err != nil {
		t.Errorf("a change to a known policy: %v", err)
	}
}

// TestDottedPropertyEndToEnd: contoso's properties["odata.type"] is
// create-only and one path segment all the way: the CRD's CEL rule
// (odata__dot__type) refuses a change without the webhook, and the webhook
// refuses it without CEL, each naming spec.properties[odata.type].
func TestDottedPropertyEndToEnd(t *testing.T) {
	for name, s := range map[string]setup{
		"CEL":     {cel: true, contoso: true},
		"Webhook": {webhook: true, contoso: true},
	} {
		t.Run(name, func(t *testing.T) {
			e := start(t, s)
			ctx := context.Background()
			ns := namespace(t, e.cl, "dotted")
			w := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": contoso.GroupVersion.String(), "kind": "Widget",
				"metadata": map[string]any{"name": "widget", "namespace": ns},
				"spec": map[string]any{"azureName": "widget", "owner": map[string]any{"armId": "/subscriptions/s/resourceGroups/rg"}, "location": "westeurope",
					"properties": map[string]any{"odata.type": "#Microsoft.A"}},
			}}
			create(t, e.cl, w)
			_ = unstructured.SetNestedField(w.Object, "#Microsoft.B", "spec", "properties", "odata.type")
			err := e.cl.Update(ctx, w)
			if err == nil || !strings.Contains(err.Error(), "spec.properties[odata.type]") || !strings.Contains(err.Error(), "create-only") {
				t.Fatalf("changing properties[odata.type]: %v, want a create-only refusal naming spec.properties[odata.type]", err)
			}
			_ = unstructured.SetNestedField(w.Object, "#Microsoft.A", "spec", "properties", "odata.type")
			_ = unstructured.SetNestedField(w.Object, "blue", "spec", "properties", "color")
			if err := e.cl.Update(ctx, w); err != nil {
				t.Errorf("a writable change beside it: %v", err)
			}
		})
	}
}
