package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/operator/importer"
	"github.com/armature-dev/armature/runtime/arm"
)

const (
	rgAPI = "2024-03-01"
	stAPI = "2023-05-01"
	kvAPI = "2023-07-01"
	miAPI = "2023-01-31"
	vmAPI = "2024-03-01"
)

func groupID(name string) string { return "/subscriptions/" + subscription + "/resourceGroups/" + name }

// makeGroup makes, directly in the emulator, a resource group and 20
// resources of 6 kinds in it: 3 storage accounts with their blob service
// and 6 containers, 2 key vaults, 4 user-assigned identities (two whose
// names sanitise alike) and 2 federated credentials.
func makeGroup(t *testing.T, c arm.Client, name string) {
	t.Helper()
	rg := groupID(name)
	put(t, c, rg, rgAPI, `{"location":"westeurope","tags":{"team":"import"}}`)
	containers := map[string][]string{"media01": {"images", "video", "raw-uploads"}, "logs01": {"app", "audit"}, "backup01": {"nightly"}}
	for _, sa := range []string{"media01", "logs01", "backup01"} {
		id := rg + "/providers/Microsoft.Storage/storageAccounts/" + sa
		put(t, c, id, stAPI, `{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"},"tags":{"app":"`+sa+`"},
			"properties":{"accessTier":"Hot","minimumTlsVersion":"TLS1_2","allowBlobPublicAccess":false,
			"networkAcls":{"defaultAction":"Deny","bypass":"AzureServices","ipRules":[{"value":"10.0.0.0/24","action":"Allow"}]}}}`)
		put(t, c, id+"/blobServices/default", stAPI, `{"properties":{"deleteRetentionPolicy":{"enabled":true,"days":7}}}`)
		for _, ctr := range containers[sa] {
			put(t, c, id+"/blobServices/default/containers/"+ctr, stAPI, `{"properties":{"publicAccess":"None","metadata":{"owner":"team-import"}}}`)
		}
	}
	for _, kv := range []string{"KV-Team-Import", "kv-secrets-02"} {
		put(t, c, rg+"/providers/Microsoft.KeyVault/vaults/"+kv, kvAPI, `{"location":"westeurope","properties":{"tenantId":"00000000-0000-0000-0000-0000000000e1",
			"sku":{"family":"A","name":"standard"},"enableRbacAuthorization":true,"accessPolicies":[]}}`)
	}
	for _, mi := range []string{"Build_Agent", "build-agent", "deployer", "reader"} {
		put(t, c, rg+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"+mi, miAPI, `{"location":"westeurope","tags":{"use":"ci"}}`)
	}
	for _, fic := range []string{"github-main", "github-prs"} {
		put(t, c, rg+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/deployer/federatedIdentityCredentials/"+fic, miAPI,
			`{"properties":{"issuer":"https://token.actions.githubusercontent.com","subject":"repo:armature-dev/armature:ref:refs/heads/`+fic+`","audiences":["api://AzureADTokenExchange"]}}`)
	}
}

// runImport imports a group into a temporary folder and returns the
// result, the folder and the ARM requests the import sent, failing the
// test on any ARM write.
func runImport(t *testing.T, fa *fakearm.Running, c arm.Client, o importer.Options) (*importer.Result, string, int) {
	t.Helper()
	fa.ResetJournal()
	o.ARM, o.Descriptors, o.SubscriptionID, o.Defaults = c.(importer.Reader), apis.Descriptors(), subscription, apis.Defaults()
	res, err := importer.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("import errors: %v", err)
	}
	dir := t.TempDir()
	if _, err := res.Write(dir, ""); err != nil {
		t.Fatal(err)
	}
	if n := armWrites(fa); n != 0 {
		t.Fatalf("the import sent %d ARM writes:\n%s", n, writesIn(fa))
	}
	calls := len(fa.Journal())
	if res.Calls != calls {
		t.Errorf("the import counts %d ARM calls, the emulator answered %d", res.Calls, calls)
	}
	return res, dir, calls
}

// TestRoundTrip: a group of 20 resources of 6 kinds made in the emulator
// is imported, applied and reconciled: every object is Ready and the
// operator sends no ARM write, neither when it adopts nor when it resyncs.
func TestRoundTrip(t *testing.T) {
	fa, c := emulator(t, fakearm.Options{})
	makeGroup(t, c, "Team_Import")
	start := time.Now()
	res, dir, calls := runImport(t, fa, c, importer.Options{ResourceGroup: "Team_Import"})
	took := time.Since(start)

	kinds := map[string]int{}
	names := map[string]bool{}
	for _, o := range res.Objects {
		kinds[o.Kind()]++
		names[o.Kind()+"/"+o.Name()] = true
	}
	want := map[string]int{"ResourceGroup": 1, "StorageAccount": 3, "StorageAccountsBlobService": 3, "StorageAccountsBlobServicesContainer": 6,
		"Vault": 2, "UserAssignedIdentity": 4, "UserAssignedIdentitiesFederatedIdentityCredential": 2}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
	for _, n := range []string{"ResourceGroup/team-import", "Vault/kv-team-import", "UserAssignedIdentity/build-agent",
		"StorageAccountsBlobServicesContainer/media01-blobservices-raw-uploads", "UserAssignedIdentitiesFederatedIdentityCredential/deployer-github-main"} {
		if !names[n] {
			t.Errorf("no object %s in %v", n, names)
		}
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}

	ns := namespace(t)
	objs := apply(t, dir, ns)
	fa.ResetJournal()
	startOperator(t, fa, ns)
	waitAdopted(t, objs, true)
	adoptRequests, adoptWrites := len(fa.Journal()), armWrites(fa)
	if n := adoptWrites; n != 0 {
		t.Errorf("adoption sent %d ARM writes:\n%s", n, writesIn(fa))
	}
	for _, o := range objs {
		cur := get(t, o)
		if id, _, _ := unstructured.NestedString(cur.Object, "status", "id"); !strings.EqualFold(id, specString(cur, "resourceID")) {
			t.Errorf("%s %s: status.id %s, spec.resourceID %s", o.GetKind(), o.GetName(), id, specString(cur, "resourceID"))
		}
	}

	// A resync of every object (the drift observer's LIST of each
	// collection, or a GET where the type cannot be listed) finds nothing
	// to correct.
	fa.ResetJournal()
	waitFor(t, 30*time.Second, "a resync read of every resource", func() (bool, string) {
		got := map[string]bool{}
		for _, e := range fa.Journal() {
			got[strings.ToLower(e.Path)] = true
		}
		var missing []string
		for _, o := range objs {
			id := strings.ToLower(specString(o, "resourceID"))
			if !got[id] && !got[id[:strings.LastIndex(id, "/")]] {
				missing = append(missing, id)
			}
		}
		return len(missing) == 0, strings.Join(missing, ", ")
	})
	time.Sleep(300 * time.Millisecond)
	if n := armWrites(fa); n != 0 {
		t.Errorf("the resync sent %d ARM writes:\n%s", n, writesIn(fa))
	}
	t.Logf("round trip: %d resources of %d kinds (and their resource group) imported in %s (%s reading ARM) with %d ARM calls, %d of them LIST pages; applied and adopted with %d ARM requests; ARM writes after apply (adoption and a resync of every object): %d",
		len(res.Objects)-1, len(kinds)-1, took.Round(time.Millisecond), res.Duration.Round(time.Millisecond), calls, res.Pages, adoptRequests, adoptWrites+armWrites(fa))
}

func specString(u *unstructured.Unstructured, field string) string {
	s, _, _ := unstructured.NestedString(u.Object, "spec", field)
	return s
}

// TestPolicySkip: with --policy skip every object carries the skip policy;
// the operator only observes: Ready, no finalizer, no ARM write.
func TestPolicySkip(t *testing.T) {
	fa, c := emulator(t, fakearm.Options{})
	rg := groupID("skip-rg")
	put(t, c, rg, rgAPI, `{"location":"westeurope"}`)
	sa := rg + "/providers/Microsoft.Storage/storageAccounts/observed01"
	put(t, c, sa, stAPI, `{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"},"properties":{"minimumTlsVersion":"TLS1_2"}}`)
	put(t, c, sa+"/blobServices/default", stAPI, `{}`)
	put(t, c, sa+"/blobServices/default/containers/data", stAPI, `{}`)
	_, dir, _ := runImport(t, fa, c, importer.Options{ResourceGroup: "skip-rg", Policy: core.PolicySkip})
	ns := namespace(t)
	objs := apply(t, dir, ns)
	if len(objs) != 4 {
		t.Fatalf("%d objects, want 4", len(objs))
	}
	fa.ResetJournal()
	startOperator(t, fa, ns)
	waitAdopted(t, objs, false)
	for _, o := range objs {
		cur := get(t, o)
		if p := cur.GetAnnotations()[core.AnnotationPolicy]; p != "skip" {
			t.Errorf("%s %s: policy %q", o.GetKind(), o.GetName(), p)
		}
		if controllerutil.ContainsFinalizer(cur, core.Finalizer) {
			t.Errorf("%s %s has the finalizer: skip never deletes", o.GetKind(), o.GetName())
		}
	}
	if n := armWrites(fa); n != 0 {
		t.Errorf("skip sent %d ARM writes:\n%s", n, writesIn(fa))
	}
}

// TestSecretReference: a virtual machine's admin password (x-ms-secret)
// becomes a reference to a Secret stub with an empty value; the value
// given to Azure is in no file. Applied with the stub, the machine is
// adopted without a write.
func TestSecretReference(t *testing.T) {
	const password = "Imp0rt-N3ver-Written!"
	fa, c := emulator(t, fakearm.Options{})
	rg := groupID("secret-rg")
	put(t, c, rg, rgAPI, `{"location":"westeurope"}`)
	put(t, c, rg+"/providers/Microsoft.Compute/virtualMachines/jumpbox", vmAPI, `{"location":"westeurope","properties":{
		"hardwareProfile":{"vmSize":"Standard_B1s"},
		"storageProfile":{"imageReference":{"publisher":"Canonical","offer":"ubuntu-24_04-lts","sku":"server","version":"latest"},
			"osDisk":{"createOption":"FromImage","managedDisk":{"storageAccountType":"Standard_LRS"}}},
		"osProfile":{"computerName":"jumpbox","adminUsername":"azureuser","adminPassword":"`+password+`"}}}`)
	res, dir, _ := runImport(t, fa, c, importer.Options{ResourceGroup: "secret-rg"})

	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	sort.Strings(files)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), password) {
			t.Errorf("%s holds the password", filepath.Base(f))
		}
	}
	var vm *importer.Object
	for _, o := range res.Objects {
		if o.Kind() == "VirtualMachine" {
			vm = o
		}
	}
	if vm == nil || vm.Secret == nil {
		t.Fatalf("no VirtualMachine with a Secret stub in %v", res.Objects)
	}
	ref, _, _ := unstructured.NestedStringMap(vm.Resource.Object, "spec", "properties", "osProfile", "adminPassword")
	if want := map[string]string{"name": "jumpbox-virtualmachine-secrets", "key": "properties.osProfile.adminPassword"}; fmt.Sprint(ref) != fmt.Sprint(want) {
		t.Errorf("adminPassword = %v, want the reference %v", ref, want)
	}
	var stub struct {
		StringData map[string]string `json:"stringData"`
	}
	readYAML(t, filepath.Join(dir, vm.Secret.FileName()), &stub)
	if v, ok := stub.StringData["properties.osProfile.adminPassword"]; !ok || v != "" {
		t.Errorf("the stub's value: %q (present %t), want an empty one", v, ok)
	}

	ns := namespace(t)
	objs := apply(t, dir, ns)
	fa.ResetJournal()
	startOperator(t, fa, ns)
	waitAdopted(t, objs, true)
	if n := armWrites(fa); n != 0 {
		t.Errorf("adoption sent %d ARM writes:\n%s", n, writesIn(fa))
	}
}
