//go:build linux

package sandbox

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/test/envtestutil"
)

// The API versions of the stack's kinds (generated/crds).
const (
	resourcesAPI = "resources.azure.armature.dev/v20240301"
	networkAPI   = "network.azure.armature.dev/v20240101"
	identityAPI  = "managedidentity.azure.armature.dev/v20230131"
	authzAPI     = "authorization.azure.armature.dev/v20220401"
	keyvaultAPI  = "keyvault.azure.armature.dev/v20230701"
	aksAPI       = "containerservice.azure.armature.dev/v20240201"
	sqlAPI       = "sql.azure.armature.dev/v20211101"

	// keyVaultSecretsUser is the built-in role Key Vault Secrets User: a
	// constant of Azure, the same in every tenant and subscription, not
	// the id of anything the stack makes.
	keyVaultSecretsUser = "/providers/Microsoft.Authorization/roleDefinitions/4633458b-17de-408a-b874-0445c86b69e6"

	stackGroup = "stack-rg"
	sqlName    = "stack-sql-7f3a"
)

// stackObjects is an application stack in which no ARM id and no
// subscription id is typed, in dependency order: a group; a virtual
// network with subnets for AKS nodes, AKS pods and private endpoints; an
// identity; a key vault whose tenantId is the identity's (valuesFrom), a
// role assignment on the vault for the identity (principalId by
// valuesFrom) and a private endpoint to the vault on the endpoints subnet
// (refs); an AKS cluster and a user agent pool on the node subnet (refs);
// a SQL server handing its FQDN to a ConfigMap (outputs) and a database.
func stackObjects(ns string) []*unstructured.Unstructured {
	ref := func(kind, name string) map[string]any { return map[string]any{"kind": kind, "name": name} }
	owner := func(name string) map[string]any { return map[string]any{"name": name} }
	return []*unstructured.Unstructured{
		obj(resourcesAPI, "ResourceGroup", ns, stackGroup, map[string]any{"location": "westeurope"}),
		obj(networkAPI, "VirtualNetwork", ns, "stack-vnet", map[string]any{
			"owner": owner(stackGroup), "location": "westeurope",
			"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.20.0.0/16"}}},
		}),
		obj(networkAPI, "VirtualNetworksSubnet", ns, "stack-nodes", map[string]any{
			"owner": owner("stack-vnet"), "azureName": "nodes", "properties": map[string]any{"addressPrefix": "10.20.0.0/22"},
		}),
		obj(networkAPI, "VirtualNetworksSubnet", ns, "stack-pods", map[string]any{
			"owner": owner("stack-vnet"), "azureName": "pods", "properties": map[string]any{"addressPrefix": "10.20.4.0/22"},
		}),
		obj(networkAPI, "VirtualNetworksSubnet", ns, "stack-endpoints", map[string]any{
			"owner": owner("stack-vnet"), "azureName": "endpoints",
			"properties": map[string]any{"addressPrefix": "10.20.8.0/24", "privateEndpointNetworkPolicies": "Disabled"},
		}),
		obj(identityAPI, "UserAssignedIdentity", ns, "stack-identity", map[string]any{"owner": owner(stackGroup), "location": "westeurope"}),
		obj(keyvaultAPI, "Vault", ns, "stack-vault", map[string]any{
			"owner": owner(stackGroup), "azureName": "stack-kv-7f3a", "location": "westeurope",
			"properties": map[string]any{
				"sku":                     map[string]any{"family": "A", "name": "standard"},
				"enableRbacAuthorization": true,
				"publicNetworkAccess":     "Disabled",
			},
			"valuesFrom": []any{map[string]any{"path": "properties.tenantId",
				"from": map[string]any{"kind": "UserAssignedIdentity", "name": "stack-identity", "field": "status.properties.tenantId"}}},
		}),
		obj(authzAPI, "RoleAssignment", ns, "stack-identity-reads-vault", map[string]any{
			"owner":      map[string]any{"group": "keyvault.azure.armature.dev", "kind": "Vault", "name": "stack-vault"},
			"azureName":  "3e0b6f4c-8a51-4d2e-9c7a-1f5e2d8b6a90",
			"properties": map[string]any{"roleDefinitionId": keyVaultSecretsUser, "principalType": "ServicePrincipal"},
			"valuesFrom": []any{map[string]any{"path": "properties.principalId",
				"from": map[string]any{"kind": "UserAssignedIdentity", "name": "stack-identity", "field": "status.properties.principalId"}}},
		}),
		obj(networkAPI, "PrivateEndpoint", ns, "stack-vault-pe", map[string]any{
			"owner": owner(stackGroup), "location": "westeurope",
			"properties": map[string]any{
				"subnet": map[string]any{"idRef": ref("VirtualNetworksSubnet", "stack-endpoints")},
				"privateLinkServiceConnections": []any{map[string]any{
					"name": "vault",
					"properties": map[string]any{
						"privateLinkServiceIdRef": ref("Vault", "stack-vault"),
						"groupIds":                []any{"vault"},
					},
				}},
			},
		}),
		obj(aksAPI, "ManagedCluster", ns, "stack-aks", map[string]any{
			"owner": owner(stackGroup), "location": "westeurope",
			"identity": map[string]any{"type": "SystemAssigned"},
			"properties": map[string]any{
				"dnsPrefix": "stack-aks",
				"agentPoolProfiles": []any{map[string]any{
					"name": "system", "mode": "System", "count": 1, "vmSize": "Standard_D2s_v3", "osType": "Linux",
					"vnetSubnetIDRef": ref("VirtualNetworksSubnet", "stack-nodes"),
				}},
				"networkProfile": map[string]any{"networkPlugin": "azure"},
			},
		}),
		obj(aksAPI, "ManagedClustersAgentPool", ns, "stack-aks-user", map[string]any{
			"owner": owner("stack-aks"), "azureName": "user",
			"properties": map[string]any{
				"mode": "User", "count": 1, "vmSize": "Standard_D2s_v3", "osType": "Linux",
				"vnetSubnetIDRef": ref("VirtualNetworksSubnet", "stack-nodes"),
				"podSubnetIDRef":  ref("VirtualNetworksSubnet", "stack-pods"),
			},
		}),
		obj(sqlAPI, "Server", ns, "stack-sql", map[string]any{
			"owner": owner(stackGroup), "azureName": sqlName, "location": "westeurope",
			"properties": map[string]any{
				"administratorLogin":         "stackadmin",
				"administratorLoginPassword": map[string]any{"name": "stack-sql-admin", "key": "password"},
				"minimalTlsVersion":          "1.2",
			},
			"operatorSpec": map[string]any{
				"configMaps": []any{map[string]any{"name": "stack-outputs", "key": "sqlHost", "value": "status.properties.fullyQualifiedDomainName"}},
			},
		}),
		obj(sqlAPI, "ServersDatabase", ns, "stack-db", map[string]any{
			"owner": owner("stack-sql"), "azureName": "app", "location": "westeurope",
			"sku": map[string]any{"name": "Basic", "tier": "Basic"},
		}),
	}
}

func obj(apiVersion, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     spec,
	}}
}

// TestStack applies a stack of 13 objects of 11 kinds in reverse
// dependency order, with no ARM id typed, and checks that all become
// Ready, that ARM received the resolved ids and values, that the SQL
// server's FQDN reached a ConfigMap, and that deleting everything at once
// leaves nothing in the emulator, sends the DELETEs in dependency order
// and has none refused.
func TestStack(t *testing.T) {
	assets, err := envtestutil.Assets()
	if err != nil {
		t.Fatal(err)
	}
	sb := start(t, build(t), t.TempDir(), assets)
	k := kubeClient(t, sb.kubeconfig)
	ctx := context.Background()
	const ns = "default"

	objs := stackObjects(ns)
	applied := slices.Clone(objs)
	slices.Reverse(applied)
	for _, o := range applied {
		create(t, k, o)
	}
	// The SQL server's password Secret comes last too: whatever the order
	// of a folder's files, the stack converges.
	create(t, k, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "stack-sql-admin", Namespace: ns},
		StringData: map[string]string{"password": "Stack-Pa55word!"},
	})
	lastApply := time.Now()
	live := waitAllReady(t, k, objs, 60*time.Second)
	t.Logf("all %d objects Ready %s after the last apply", len(objs), time.Since(lastApply).Round(100*time.Millisecond))

	id := func(name string) string {
		if live[name] == nil {
			return ""
		}
		s, _, _ := unstructured.NestedString(live[name].Object, "status", "id")
		return s
	}
	for _, o := range objs {
		if want := "/subscriptions/" + operatorSubscription + "/resourceGroups/" + stackGroup; !strings.HasPrefix(id(o.GetName()), want) {
			t.Errorf("%s %s has status.id %q, want it under %s", o.GetKind(), o.GetName(), id(o.GetName()), want)
		}
	}
	journal := sb.journal(t)
	for _, e := range journal {
		if e.Method == http.MethodPut && e.Status >= 400 {
			t.Errorf("PUT %s answered %d: %s", e.Path, e.Status, e.Body)
		}
	}
	checkCreateOrder(t, journal, objs, id)
	checkPutBodies(t, journal, live, id)
	checkOutputs(t, k, live["stack-sql"])

	held := 0
	for _, r := range sb.armResources(t) {
		if strings.Contains(strings.ToLower(r), "/resourcegroups/"+stackGroup) {
			held++
		}
	}
	if held < len(objs) {
		t.Errorf("the emulator holds %d resources of the stack before the delete, want at least %d: the check after it would prove nothing", held, len(objs))
	}

	mark := len(journal)
	for _, o := range applied {
		if err := k.Delete(ctx, o); err != nil {
			t.Fatalf("delete %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	deleted := time.Now()
	waitAllGone(t, k, objs, 60*time.Second)
	t.Logf("all %d objects gone %s after the deletes", len(objs), time.Since(deleted).Round(100*time.Millisecond))

	journal = sb.journal(t)
	checkDeletes(t, journal[mark:], objs, id)
	for _, left := range sb.armResources(t) {
		if strings.Contains(strings.ToLower(left), "/resourcegroups/"+stackGroup) {
			t.Errorf("left in ARM after the stack was deleted: %s", left)
		}
	}
	logCallsPerObject(t, journal, objs, id)
	sb.interrupt(t)
}

// waitAllReady polls the objects until every one is Ready=True Succeeded
// and returns them by name; on timeout it fails naming each object's
// Ready condition.
func waitAllReady(t *testing.T, k client.Client, objs []*unstructured.Unstructured, timeout time.Duration) map[string]*unstructured.Unstructured {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		live := map[string]*unstructured.Unstructured{}
		var pending []string
		for _, o := range objs {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(o.GroupVersionKind())
			if err := k.Get(context.Background(), client.ObjectKeyFromObject(o), u); err != nil {
				t.Fatal(err)
			}
			live[o.GetName()] = u
			if status, reason, msg := readyOf(u); status != "True" || reason != "Succeeded" {
				pending = append(pending, fmt.Sprintf("%s %s: %s %s: %s", o.GetKind(), o.GetName(), status, reason, msg))
			}
		}
		if len(pending) == 0 {
			return live
		}
		if time.Now().After(deadline) {
			t.Fatalf("not Ready within %s:\n  %s", timeout, strings.Join(pending, "\n  "))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func readyOf(u *unstructured.Unstructured) (status, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "Ready" {
			return fmt.Sprint(m["status"]), fmt.Sprint(m["reason"]), fmt.Sprint(m["message"])
		}
	}
	return "", "", ""
}

// waitAllGone polls until none of the objects exists.
func waitAllGone(t *testing.T, k client.Client, objs []*unstructured.Unstructured, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var left []string
		for _, o := range objs {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(o.GroupVersionKind())
			err := k.Get(context.Background(), client.ObjectKeyFromObject(o), u)
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				t.Fatal(err)
			default:
				status, reason, msg := readyOf(u)
				left = append(left, fmt.Sprintf("%s %s: %s %s: %s", o.GetKind(), o.GetName(), status, reason, msg))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not deleted within %s:\n  %s", timeout, strings.Join(left, "\n  "))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// lastPut returns the body of the last PUT to path that ARM accepted.
func lastPut(t *testing.T, journal []fakearm.Entry, path string) map[string]any {
	t.Helper()
	for i := len(journal) - 1; i >= 0; i-- {
		e := journal[i]
		if e.Method == http.MethodPut && e.Status < 300 && strings.EqualFold(e.Path, path) {
			var body map[string]any
			if err := json.Unmarshal([]byte(e.Body), &body); err != nil {
				t.Fatalf("PUT %s: body %q: %v", path, e.Body, err)
			}
			return body
		}
	}
	t.Errorf("no PUT to %s accepted by ARM", path)
	return map[string]any{}
}

// at reads a value of a JSON body by keys and list indexes.
func at(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// checkPutBodies checks that the PUTs ARM accepted carry the ids of the
// referenced objects and the values valuesFrom supplies, and none of the
// operator's fields.
func checkPutBodies(t *testing.T, journal []fakearm.Entry, live map[string]*unstructured.Unstructured, id func(string) string) {
	t.Helper()
	identity := live["stack-identity"].Object
	principal, _, _ := unstructured.NestedString(identity, "status", "properties", "principalId")
	tenant, _, _ := unstructured.NestedString(identity, "status", "properties", "tenantId")
	if principal == "" || tenant == "" {
		t.Errorf("the identity has principalId %q and tenantId %q, want both set by ARM", principal, tenant)
	}
	cases := map[string]struct {
		object string
		path   []any
		want   string
	}{
		"agent pool on the node subnet":        {"stack-aks-user", []any{"properties", "vnetSubnetID"}, id("stack-nodes")},
		"agent pool's pods on the pod subnet":  {"stack-aks-user", []any{"properties", "podSubnetID"}, id("stack-pods")},
		"cluster's system pool on node subnet": {"stack-aks", []any{"properties", "agentPoolProfiles", 0, "vnetSubnetID"}, id("stack-nodes")},
		"private endpoint on endpoints subnet": {"stack-vault-pe", []any{"properties", "subnet", "id"}, id("stack-endpoints")},
		"private endpoint to the vault":        {"stack-vault-pe", []any{"properties", "privateLinkServiceConnections", 0, "properties", "privateLinkServiceId"}, id("stack-vault")},
		"role assignment for the identity":     {"stack-identity-reads-vault", []any{"properties", "principalId"}, principal},
		"role assignment of the built-in role": {"stack-identity-reads-vault", []any{"properties", "roleDefinitionId"}, keyVaultSecretsUser},
		"vault in the identity's tenant":       {"stack-vault", []any{"properties", "tenantId"}, tenant},
	}
	for name, tc := range cases {
		if id(tc.object) == "" {
			t.Errorf("%s: %s has no status.id", name, tc.object)
			continue
		}
		got := at(lastPut(t, journal, id(tc.object)), tc.path...)
		if got != tc.want || tc.want == "" {
			t.Errorf("%s: PUT %s carries %v at %v, want %q", name, id(tc.object), got, tc.path, tc.want)
		}
	}
	if want := id("stack-vault") + "/providers/Microsoft.Authorization/roleAssignments/"; !strings.HasPrefix(id("stack-identity-reads-vault"), want) {
		t.Errorf("the role assignment's id is %q, want it on the vault (%s…)", id("stack-identity-reads-vault"), want)
	}
	for _, e := range journal {
		if e.Method != http.MethodPut && e.Method != http.MethodPatch {
			continue
		}
		for _, bad := range []string{"Ref\"", "Refs\"", "\"valuesFrom\"", "\"operatorSpec\"", "\"owner\"", "\"azureName\""} {
			if strings.Contains(e.Body, bad) {
				t.Errorf("%s %s sends an operator field (%s): %s", e.Method, e.Path, bad, e.Body)
			}
		}
	}
}

// checkCreateOrder checks that, applied in reverse, each object reached
// ARM only after what it names (owner, reference, valuesFrom source) was
// created there: the operator waited rather than sending a dangling id.
func checkCreateOrder(t *testing.T, journal []fakearm.Entry, objs []*unstructured.Unstructured, id func(string) string) {
	t.Helper()
	created := map[string]int{}
	var order []string
	for _, o := range objs {
		for i, e := range journal {
			if e.Method == http.MethodPut && e.Status < 300 && strings.EqualFold(e.Path, id(o.GetName())) {
				created[o.GetName()] = i
				break
			}
		}
	}
	for _, o := range objs {
		order = append(order, o.GetName())
	}
	slices.SortFunc(order, func(a, b string) int { return created[a] - created[b] })
	t.Logf("PUT order: %s", strings.Join(order, ", "))
	after := [][2]string{ // {object, what it names}
		{"stack-vnet", stackGroup},
		{"stack-nodes", "stack-vnet"},
		{"stack-vault", "stack-identity"},
		{"stack-identity-reads-vault", "stack-vault"},
		{"stack-identity-reads-vault", "stack-identity"},
		{"stack-vault-pe", "stack-endpoints"},
		{"stack-vault-pe", "stack-vault"},
		{"stack-aks", "stack-nodes"},
		{"stack-aks-user", "stack-aks"},
		{"stack-aks-user", "stack-nodes"},
		{"stack-aks-user", "stack-pods"},
		{"stack-db", "stack-sql"},
	}
	for _, p := range after {
		a, okA := created[p[0]]
		b, okB := created[p[1]]
		if !okA || !okB || a < b {
			t.Errorf("%s was created in ARM (journal #%d, found %v) before %s (#%d, found %v), which it names", p[0], a, okA, p[1], b, okB)
		}
	}
}

// checkOutputs waits for the SQL server's FQDN in the ConfigMap its
// operatorSpec names.
func checkOutputs(t *testing.T, k client.Client, server *unstructured.Unstructured) {
	t.Helper()
	fqdn, _, _ := unstructured.NestedString(server.Object, "status", "properties", "fullyQualifiedDomainName")
	if fqdn != sqlName+".database.windows.net" {
		t.Errorf("the SQL server's status.properties.fullyQualifiedDomainName is %q, want %s.database.windows.net", fqdn, sqlName)
	}
	var cm corev1.ConfigMap
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := k.Get(context.Background(), client.ObjectKey{Namespace: server.GetNamespace(), Name: "stack-outputs"}, &cm)
		if err == nil && cm.Data["sqlHost"] != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ConfigMap stack-outputs has no sqlHost within 15s (err %v, data %v)", err, cm.Data)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if cm.Data["sqlHost"] != fqdn {
		t.Errorf("ConfigMap stack-outputs has sqlHost %q, want the server's FQDN %q", cm.Data["sqlHost"], fqdn)
	}
	if !slices.ContainsFunc(cm.OwnerReferences, func(r metav1.OwnerReference) bool { return r.Kind == "Server" && r.Name == server.GetName() }) {
		t.Errorf("ConfigMap stack-outputs is not owned by the server: %v", cm.OwnerReferences)
	}
}

// checkDeletes checks the DELETEs of the journal's tail: one per object,
// none refused with a 4xx other than 404, and each dependent's last DELETE
// before the first DELETE of what it depends on.
func checkDeletes(t *testing.T, journal []fakearm.Entry, objs []*unstructured.Unstructured, id func(string) string) {
	t.Helper()
	first, last := map[string]int{}, map[string]int{}
	var order []string
	byPath := map[string]string{}
	for _, o := range objs {
		byPath[strings.ToLower(id(o.GetName()))] = o.GetName()
	}
	for i, e := range journal {
		if e.Method != http.MethodDelete {
			continue
		}
		if e.Status >= 400 && e.Status < 500 && e.Status != http.StatusNotFound {
			t.Errorf("DELETE %s answered %d: %s", e.Path, e.Status, e.Body)
		}
		name, ok := byPath[strings.ToLower(e.Path)]
		if !ok {
			continue
		}
		if _, seen := first[name]; !seen {
			first[name] = i
			order = append(order, name)
		}
		last[name] = i
	}
	t.Logf("DELETE order: %s", strings.Join(order, ", "))
	for _, o := range objs {
		if _, ok := first[o.GetName()]; !ok {
			t.Errorf("no DELETE of %s %s (%s) reached ARM", o.GetKind(), o.GetName(), id(o.GetName()))
		}
	}
	before := [][2]string{
		{"stack-aks-user", "stack-aks"},
		{"stack-aks-user", "stack-nodes"},
		{"stack-aks-user", "stack-pods"},
		{"stack-aks", "stack-nodes"},
		{"stack-vault-pe", "stack-endpoints"},
		{"stack-vault-pe", "stack-vault"},
		{"stack-identity-reads-vault", "stack-vault"},
		{"stack-nodes", "stack-vnet"},
		{"stack-pods", "stack-vnet"},
		{"stack-endpoints", "stack-vnet"},
		{"stack-db", "stack-sql"},
	}
	for _, o := range objs {
		if o.GetName() != stackGroup {
			before = append(before, [2]string{o.GetName(), stackGroup})
		}
	}
	for _, p := range before {
		a, okA := last[p[0]]
		b, okB := first[p[1]]
		if okA && okB && a > b {
			t.Errorf("DELETE of %s (journal #%d) was sent after the first DELETE of %s (#%d), which depends on it going first", p[0], a, p[1], b)
		}
	}
}

// logCallsPerObject logs how many requests ARM got for each object: at
// its own path (GET, PUT, PATCH, DELETE) and below it (the extra status
// GETs of its kind, such as a cluster's upgradeProfiles/default), each
// request going to the object with the longest id it starts with; then the
// averages of the objects with and without references or valuesFrom, and
// the operation polls, which name no resource and go to no object.
func logCallsPerObject(t *testing.T, journal []fakearm.Entry, objs []*unstructured.Unstructured, id func(string) string) {
	count := map[string]map[string]int{}
	for _, o := range objs {
		count[o.GetName()] = map[string]int{}
	}
	ops, other := 0, []string(nil)
	for _, e := range journal {
		path, owner := strings.ToLower(e.Path), ""
		for _, o := range objs {
			oid := strings.ToLower(id(o.GetName()))
			if (path == oid || strings.HasPrefix(path, oid+"/")) && len(oid) > len(strings.ToLower(id(owner))) {
				owner = o.GetName()
			}
		}
		switch {
		case owner != "" && path == strings.ToLower(id(owner)):
			count[owner][e.Method]++
			count[owner]["all"]++
		case owner != "":
			count[owner]["below"]++
			count[owner]["all"]++
		case strings.Contains(path, "/operations/") || strings.Contains(path, "/operationresults/") || strings.Contains(path, "/asyncoperations/"):
			ops++
		default:
			other = append(other, e.Method+" "+e.Path)
		}
	}
	total, sums, objects := 0, map[bool]int{}, map[bool]int{}
	for _, o := range objs {
		c := count[o.GetName()]
		spec, _ := json.Marshal(o.Object["spec"])
		refs := strings.Contains(string(spec), `Ref"`) || strings.Contains(string(spec), `Refs"`) || strings.Contains(string(spec), `"valuesFrom"`)
		total += c["all"]
		sums[refs] += c["all"]
		objects[refs]++
		t.Logf("ARM calls %-24s %-26s %2d (GET %d, PUT %d, PATCH %d, DELETE %d, below its path %d) references: %v",
			o.GetKind(), o.GetName(), c["all"], c[http.MethodGet], c[http.MethodPut], c[http.MethodPatch], c[http.MethodDelete], c["below"], refs)
	}
	avg := func(refs bool) float64 { return float64(sums[refs]) / float64(max(objects[refs], 1)) }
	t.Logf("ARM calls for the objects: %d for %d objects, %.1f per object (%.1f with references or valuesFrom, %d objects; %.1f without, %d); operation polls %d (%.1f per object); other requests %d %v",
		total, len(objs), float64(total)/float64(len(objs)), avg(true), objects[true], avg(false), objects[false], ops, float64(ops)/float64(len(objs)), len(other), other)
}

// armClient is an HTTP client that trusts the emulator's CA.
func (sb *running) armClient(t *testing.T) *http.Client {
	ca, err := os.ReadFile(filepath.Join(sb.dir, "arm-ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}, Timeout: 10 * time.Second}
}

// adminGet decodes the answer of an emulator admin endpoint into v.
func (sb *running) adminGet(t *testing.T, path string, v any) {
	t.Helper()
	resp, err := sb.armClient(t).Get(sb.arm + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// journal is the emulator's journal, oldest first.
func (sb *running) journal(t *testing.T) []fakearm.Entry {
	var j []fakearm.Entry
	sb.adminGet(t, "/_admin/journal", &j)
	return j
}

// armResources are the ids of the resources the emulator holds.
func (sb *running) armResources(t *testing.T) []string {
	var ids []string
	sb.adminGet(t, "/_admin/resources", &ids)
	return ids
}
