package importer_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/operator/importer"
	"github.com/armature-dev/armature/runtime/arm"
)

const (
	sub = "00000000-0000-0000-0000-0000000000b1"
	rg  = "/subscriptions/" + sub + "/resourceGroups/team-b"
	sa  = rg + "/providers/Microsoft.Storage/storageAccounts/media01"
)

type put struct{ id, api, body string }

// group is a resource group with a storage account, its blob service,
// three containers and five identities.
var group = []put{
	{rg, "2024-03-01", `{"location":"westeurope"}`},
	{sa, "2023-05-01", `{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"},"properties":{"minimumTlsVersion":"TLS1_2"}}`},
	{sa + "/blobServices/default", "2023-05-01", `{}`},
	{sa + "/blobServices/default/containers/a", "2023-05-01", `{}`},
	{sa + "/blobServices/default/containers/b", "2023-05-01", `{}`},
	{sa + "/blobServices/default/containers/c", "2023-05-01", `{}`},
	{rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1", "2023-01-31", `{"location":"westeurope"}`},
	{rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id2", "2023-01-31", `{"location":"westeurope"}`},
	{rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id3", "2023-01-31", `{"location":"westeurope"}`},
	{rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id4", "2023-01-31", `{"location":"westeurope"}`},
	{rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id5", "2023-01-31", `{"location":"westeurope"}`},
}

// emulator starts fakearm with resources made by PUT and an empty journal.
func emulator(t *testing.T, opts fakearm.Options, puts ...put) (*fakearm.Running, importer.Reader) {
	t.Helper()
	opts.RetryAfter = -1
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	c, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: fa.HTTPClient(), MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range puts {
		res, err := c.Put(ctx, p.id, p.api, []byte(p.body))
		for err == nil && !res.Done() {
			res, err = c.Poll(ctx, res.Token)
		}
		if err != nil {
			t.Fatalf("PUT %s: %v", p.id, err)
		}
	}
	fa.ResetJournal()
	return fa, c.(importer.Reader)
}

func run(t *testing.T, c importer.Reader, o importer.Options) *importer.Result {
	t.Helper()
	o.ARM, o.Descriptors, o.SubscriptionID = c, apis.Descriptors(), sub
	if o.ResourceGroup == "" {
		o.ResourceGroup = "team-b"
	}
	res, err := importer.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func kinds(res *importer.Result) map[string]int {
	out := map[string]int{}
	for _, o := range res.Objects {
		out[o.Kind()]++
	}
	return out
}

// TestPaging: with two items per page the LISTs of containers and
// identities take several pages, all followed; every page counts as a call.
func TestPaging(t *testing.T) {
	fa, c := emulator(t, fakearm.Options{PageSize: 2}, group...)
	res := run(t, c, importer.Options{})
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if k := kinds(res); k["StorageAccountsBlobServicesContainer"] != 3 || k["UserAssignedIdentity"] != 5 {
		t.Errorf("kinds %v, want 3 containers and 5 identities", k)
	}
	followed := 0
	for _, e := range fa.Journal() {
		if e.Page > 1 && strings.Contains(e.Query, "skiptoken") {
			followed++
		}
	}
	// 3 containers: 2 pages; 5 identities: 3 pages; the inventory's 6
	// top-level resources: 3 pages.
	if followed != 5 {
		t.Errorf("%d nextLinks followed, want 5 (containers 1, identities 2, inventory 2)", followed)
	}
	if int64(res.Pages) != fa.Count("LIST") || res.Calls != len(fa.Journal()) {
		t.Errorf("the import counts %d calls and %d pages; the emulator %d requests and %d pages", res.Calls, res.Pages, len(fa.Journal()), fa.Count("LIST"))
	}
}

// TestKinds: --kinds selects what is written; the ancestors of a selected
// kind are read but not written (owners become ARM ids), and types that
// are neither are not read at all.
func TestKinds(t *testing.T) {
	fa, c := emulator(t, fakearm.Options{}, group...)
	res := run(t, c, importer.Options{Kinds: []string{"storage.*/StorageAccountsBlobServicesContainer"}})
	if k := kinds(res); len(k) != 1 || k["StorageAccountsBlobServicesContainer"] != 3 {
		t.Fatalf("kinds %v, want the 3 containers only", k)
	}
	owner := res.Objects[0].Resource.Object["spec"].(map[string]any)["owner"]
	if diff := cmp.Diff(map[string]any{"armId": sa + "/blobServices/default"}, owner); diff != "" {
		t.Errorf("owner of a container whose blob service is not imported: -want +got:\n%s", diff)
	}
	for _, e := range fa.Journal() {
		if strings.Contains(e.Path, "userAssignedIdentities") || strings.Contains(e.Path, "fileServices") {
			t.Errorf("%s %s: a type neither selected nor an ancestor of one is read", e.Method, e.Path)
		}
	}
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, s.ARMType+": "+s.Reason)
	}
	if !strings.Contains(strings.Join(skipped, "\n"), "Microsoft.ManagedIdentity/userAssignedIdentities: not selected by --kinds") {
		t.Errorf("the inventory's identities are not reported as not selected:\n%s", strings.Join(skipped, "\n"))
	}
	if _, err := importer.Run(context.Background(), importer.Options{ARM: c, Descriptors: apis.Descriptors(), SubscriptionID: sub, ResourceGroup: "team-b", Kinds: []string{"nothing/*"}}); err == nil {
		t.Error("kinds that select nothing are an error")
	}
}

// TestReadErrors: a type ARM refuses to list (403) is skipped with ARM's
// reason; a failure that is not the caller's (500) is an error naming the
// collection; a missing group is an error naming its id.
func TestReadErrors(t *testing.T) {
	fa, c := emulator(t, fakearm.Options{}, group...)
	fa.SetFaults(fakearm.Faults{ErrorRate: 1, ErrorStatus: 403, PathContains: "/containers", Methods: []string{"GET"}})
	res := run(t, c, importer.Options{})
	found := false
	for _, s := range res.Skipped {
		found = found || s.Kind == "StorageAccountsBlobServicesContainer" && strings.Contains(s.Reason, "answered 403") && strings.Contains(s.Reason, sa+"/blobServices/default/containers")
	}
	if !found || res.Err() != nil {
		t.Errorf("a 403 LIST: skipped %v, errors %v", res.Skipped, res.Err())
	}

	fa.SetFaults(fakearm.Faults{ErrorRate: 1, ErrorStatus: 500, PathContains: "/containers", Methods: []string{"GET"}})
	res = run(t, c, importer.Options{})
	if err := res.Err(); err == nil || !strings.Contains(err.Error(), "LIST "+sa+"/blobServices/default/containers") {
		t.Errorf("a 500 LIST: error %v, want one naming the collection", err)
	}
	if k := kinds(res); k["StorageAccount"] != 1 || k["UserAssignedIdentity"] != 5 {
		t.Errorf("the rest is imported all the same: %v", k)
	}

	fa.SetFaults(fakearm.Faults{})
	_, err := importer.Run(context.Background(), importer.Options{ARM: c, Descriptors: apis.Descriptors(), SubscriptionID: sub, ResourceGroup: "nope"})
	if err == nil || !strings.Contains(err.Error(), "/subscriptions/"+sub+"/resourceGroups/nope") {
		t.Errorf("a missing group: %v", err)
	}
}

// TestWrite: one file per resource, named predictably, and a kustomization
// listing them with the namespace asked for.
func TestWrite(t *testing.T) {
	_, c := emulator(t, fakearm.Options{}, group[:4]...)
	res := run(t, c, importer.Options{})
	dir := t.TempDir()
	files, err := res.Write(dir, "team-b")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"resources_resourcegroup_team-b.yaml",
		"storage_storageaccount_media01.yaml",
		"storage_storageaccountsblobservice_media01-blobservices.yaml",
		"storage_storageaccountsblobservicescontainer_media01-blobservices-a.yaml",
		importer.KustomizationFile,
	}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("files\n%s\nwant\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
	k, _ := os.ReadFile(filepath.Join(dir, importer.KustomizationFile))
	if !strings.Contains(string(k), "namespace: team-b\nresources:\n- resources_resourcegroup_team-b.yaml\n") {
		t.Errorf("kustomization.yaml:\n%s", k)
	}
	sa, _ := os.ReadFile(filepath.Join(dir, want[1]))
	for _, s := range []string{"# Imported by `operator import` from " + rg + "/providers/Microsoft.Storage/storageAccounts/media01", "resourceID: " + rg + "/providers/Microsoft.Storage/storageAccounts/media01", "owner:\n    name: team-b", "minimumTlsVersion: TLS1_2"} {
		if !strings.Contains(string(sa), s) {
			t.Errorf("%s lacks %q:\n%s", want[1], s, sa)
		}
	}
	if strings.Contains(string(sa), "provisioningState") || strings.Contains(string(sa), "primaryEndpoints") {
		t.Errorf("%s has readOnly values:\n%s", want[1], sa)
	}
}
