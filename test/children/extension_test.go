package children_test

import (
	"testing"
	"time"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/reconciler"

	fabrikam "github.com/armature-dev/armature/generator/testdata/embedded/expected/apis/fabrikam/v20240501"
)

// extensionCase is an extension kind, its path segment below the owner's
// id and a spec body.
type extensionCase struct {
	d *descriptor.Descriptor
	// segment is what follows the owner's id: /providers/<ns>/<type>/.
	segment string
	spec    map[string]any
}

func grants() extensionCase {
	return extensionCase{d: &fabrikam.GrantDescriptor, segment: "/providers/Microsoft.Fabrikam/grants/",
		spec: map[string]any{"properties": map[string]any{"principalId": "11111111-1111-1111-1111-111111111111", "role": "Reader"}}}
}

func roleAssignments() (extensionCase, bool) {
	d := byType("Microsoft.Authorization/roleAssignments")
	if d == nil {
		return extensionCase{}, false
	}
	return extensionCase{d: d, segment: "/providers/Microsoft.Authorization/roleAssignments/",
		spec: map[string]any{"properties": map[string]any{
			"principalId":      "11111111-1111-1111-1111-111111111111",
			"roleDefinitionId": "/subscriptions/" + subscription + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
		}}}, true
}

// TestExtensionOwners: an extension kind owned by a StorageAccount through
// spec.owner group, kind and name waits for it (the account does not exist
// yet), is requeued when it turns Ready (the watch on every kind, not the
// hour-long sync period) and is PUT below the account's id; one owned by a
// resource group's ARM id is PUT below the group.
func TestExtensionOwners(t *testing.T) {
	t.Run("FabrikamGrant", func(t *testing.T) { extensionOwners(t, grants()) })
	t.Run("AuthorizationRoleAssignment", func(t *testing.T) {
		c, ok := roleAssignments()
		if !ok {
			t.Skip("Microsoft.Authorization roleAssignments is not generated (generated/apis/authorization): the same test runs over the golden case's Grant above")
		}
		extensionOwners(t, c)
	})
}

func extensionOwners(t *testing.T, c extensionCase) {
	ns := namespace(t)
	fa := start(t, ns, reconciler.Config{})
	account := byType("Microsoft.Storage/storageAccounts")
	// Role assignment names are GUIDs in ARM.
	const kindName, idName = "6f1f4c2e-0000-4000-8000-00000000000a", "6f1f4c2e-0000-4000-8000-00000000000b"
	spec := func(owner map[string]any, azureName string) map[string]any {
		s := map[string]any{"owner": owner, "azureName": azureName}
		for k, v := range c.spec {
			s[k] = v
		}
		return s
	}
	byKind := cr(c.d, ns, "ext-by-kind", spec(map[string]any{"group": account.Group, "kind": account.Kind, "name": "acct1"}, kindName))
	rg := resourceGroup(ns, "rg")
	create(t, rg, byKind)
	eventually(t, 30*time.Second, "the extension resource waits for its owner", func() (bool, string) {
		s, r, m, _ := ready(get(t, byKind))
		return s == "False" && r == core.ReasonWaitingForOwner, r + " " + m
	})
	waitReady(t, rg)
	acct := cr(account, ns, "acct1", map[string]any{"owner": map[string]any{"name": "rg"}, "location": "westeurope", "kind": "StorageV2",
		"sku": map[string]any{"name": "Standard_LRS"}, "properties": map[string]any{"accessTier": "Hot"}})
	rgID := statusID(t, rg)
	byID := cr(c.d, ns, "ext-by-id", spec(map[string]any{"armId": rgID}, idName))
	create(t, acct, byID)
	waitReady(t, acct, byKind, byID)

	for _, w := range []struct{ obj, want string }{
		{obj: byKind.GetName(), want: statusID(t, acct) + c.segment + kindName},
		{obj: byID.GetName(), want: rgID + c.segment + idName},
	} {
		if n := len(writes(fa, w.want)); n == 0 {
			t.Errorf("%s: no PUT at %s in the emulator's journal", w.obj, w.want)
		}
	}
	if got, want := statusID(t, byKind), statusID(t, acct)+c.segment+kindName; got != want {
		t.Errorf("status.id %s, want %s", got, want)
	}
}
