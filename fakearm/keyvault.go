package fakearm

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// Key Vault soft delete (issue 28.4): a deleted vault is kept, with its
// name, until it is purged or its retention ends, and a vault PUT with
// properties.createMode "recover" brings it back. What the emulator does
// and where each answer comes from (docs/emulator.md#key-vault-soft-delete):
//
//   - DELETE of a vault (also by its resource group's deletion) whose
//     properties.enableSoftDelete is not false (the swagger's default is
//     true) keeps it as a deleted vault at
//     /subscriptions/{s}/providers/Microsoft.KeyVault/locations/{l}/deletedVaults/{name}.
//     Its GET body is the recorded one: id, name, type
//     Microsoft.KeyVault/deletedVaults, properties.vaultId, location, tags,
//     deletionDate, scheduledPurgeDate (ASO's
//     Test_KeyVault_WhenPurgeSpecified_PurgesSuccessfully.yaml #2, #8;
//     Test_KeyVault_WhenRecoverSpecified_RecoversSuccessfully.yaml #8;
//     Test_KeyVault_OwnerIsARMID_RecoversSuccessfully.yaml #2, #8;
//     Test_KeyVault_CreateOrRecover_FailsWhenRecoveringKeyVaultInDifferentResourceGroup.yaml #4, #10),
//     purgeProtectionEnabled when the vault had it (swagger
//     DeletedVaultProperties); scheduledPurgeDate is deletionDate plus
//     softDeleteRetentionInDays (swagger default 90), after which it is gone.
//   - GET of a deleted vault that is not there: 404 DeletedVaultNotFound with
//     Key Vault's message (recorded: Test_KeyVault_WhenPurgeSpecified_PurgesSuccessfully.yaml #11,
//     Test_KeyVault_Vault_CRUD.yaml, Test_Compute_DiskEncryptionSet_20220702_CRUD.yaml,
//     Test_MachineLearning_Workspaces_CRUD.yaml).
//   - GET /subscriptions/{s}/providers/Microsoft.KeyVault/deletedVaults
//     lists them (swagger Vaults_ListDeleted).
//   - POST …/deletedVaults/{name}/purge: 202 with a Location at
//     …/locations/{l}/operationResults/{id} and Retry-After, no
//     Azure-AsyncOperation; the poll ends 200 and the name is free (recorded:
//     Test_KeyVault_WhenPurgeSpecified_PurgesSuccessfully.yaml #9–#12).
//   - PUT of a vault whose name a deleted vault holds (vault names are DNS
//     names: in any resource group or subscription): 409 ConflictError
//     "A vault with the same name already exists in deleted state…",
//     unless createMode is "recover". Not in a recording; status, code and
//     wording as ARM answered a deployment in 2026-01
//     (alan-turing-institute/data-safe-haven#2523; also
//     https://dotnetpower.github.io/elb-dashboard/features_change/2026-05/2026-05-24-keyvault-soft-delete-recovery/).
//     The older wording "Exist soft deleted vault with the same name." is
//     what runtime/arm's classifier matches ("soft deleted").
//   - PUT with createMode "recover": 200, provisioningState Succeeded at
//     once, the vault as it was when deleted (recorded: the four ASO
//     recordings above, #4 and #10, recover PUT 200 Succeeded; the old
//     properties, not the request's, come back: Azure/azure-rest-api-specs#21306).
//     A recover with no deleted vault of that name: 404
//     SoftDeletedVaultDoesNotExist (the code reported in AzureCosmosDB/OmniVec#24;
//     the status is not recorded). A recover into another resource group
//     than the vault's: 409 ConflictError naming the original vault (not
//     recorded; ASO refuses it before ARM, vault_extensions.go).

const (
	vaultType        = "Microsoft.KeyVault/vaults"
	deletedVaultType = "Microsoft.KeyVault/deletedVaults"
	// verbPurge is the operation verb of a deleted vault's purge.
	verbPurge = "PURGE"
	// defaultRetentionDays is softDeleteRetentionInDays' swagger default.
	defaultRetentionDays = 90
	// deletedVaultNotFound is Key Vault's recorded message (the name is %s).
	deletedVaultNotFound = "The specified deleted vault '%s' does not exist. Ensure that the vault was indeed deleted and that it is in recoverable state. If soft delete was not enabled then the vault is permanently deleted. Follow this link for more information: https://go.microsoft.com/fwlink/?linkid=2149745"
)

// deletedVault is a soft-deleted Key Vault.
type deletedVault struct {
	Sub      string `json:"sub"`
	Location string `json:"location"`
	// Vault is the vault as it was deleted: what a recover restores.
	Vault   *resource `json:"vault"`
	Deleted time.Time `json:"deleted"`
	PurgeAt time.Time `json:"purgeAt"`
	// Purging is the id of the purge operation in flight, if any.
	Purging string `json:"purging,omitempty"`
}

func (v *deletedVault) name() string {
	segs := strings.Split(v.Vault.ID, "/")
	return segs[len(segs)-1]
}

func (v *deletedVault) id() string {
	return "/subscriptions/" + v.Sub + "/providers/Microsoft.KeyVault/locations/" + v.Location + "/deletedVaults/" + v.name()
}

// body is the deleted vault's GET body, in the recorded shape.
func (v *deletedVault) body() map[string]any {
	props := map[string]any{
		"vaultId":            v.Vault.ID,
		"location":           v.Location,
		"tags":               map[string]any{},
		"deletionDate":       v.Deleted.Format(time.RFC3339),
		"scheduledPurgeDate": v.PurgeAt.Format(time.RFC3339),
	}
	if tags, ok := v.Vault.Desired["tags"].(map[string]any); ok {
		props["tags"] = tags
	}
	if p, _ := v.Vault.Desired["properties"].(map[string]any); p != nil && p["enablePurgeProtection"] == true {
		props["purgeProtectionEnabled"] = true
	}
	return map[string]any{"id": v.id(), "name": v.name(), "type": deletedVaultType, "properties": props}
}

// isVault reports whether a resource is a Key Vault vault.
func isVault(res *resource) bool {
	return res != nil && strings.EqualFold(res.ARMType, vaultType)
}

// softDelete keeps a vault being removed as a deleted vault, unless its
// soft delete is off. The caller holds s.mu.
func (s *Server) softDelete(res *resource) {
	props, _ := res.Desired["properties"].(map[string]any)
	if props != nil && props["enableSoftDelete"] == false {
		return
	}
	days := defaultRetentionDays
	if props != nil {
		if n, ok := jsonInt(props["softDeleteRetentionInDays"]); ok && n > 0 {
			days = n
		}
	}
	segs := strings.Split(strings.Trim(res.ID, "/"), "/")
	loc, _ := res.Desired["location"].(string)
	now := s.opts.Now().UTC()
	kept := *res
	kept.Desired = runtime.DeepCopyJSON(res.Desired)
	kept.Op, kept.rendered = "", nil
	v := &deletedVault{Sub: segs[1], Location: strings.ToLower(strings.ReplaceAll(loc, " ", "")), Vault: &kept, Deleted: now, PurgeAt: now.AddDate(0, 0, days)}
	if s.deleted == nil {
		s.deleted = map[string]*deletedVault{}
	}
	s.deleted[lower(v.name())] = v
}

func jsonInt(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), true
	case int:
		return n, true
	case interface{ Int64() (int64, error) }:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

// deletedVaultNamed is the deleted vault holding a name, after dropping
// one whose retention has ended. The caller holds s.mu.
func (s *Server) deletedVaultNamed(name string) *deletedVault {
	v := s.deleted[lower(name)]
	if v != nil && !s.opts.Now().UTC().Before(v.PurgeAt) {
		delete(s.deleted, lower(name))
		return nil
	}
	return v
}

// vaultPut handles what soft delete decides of a vault PUT where no vault
// exists at the id: a name held by a deleted vault, and createMode
// "recover". It reports whether it answered. The caller holds s.mu.
func (s *Server) vaultPut(w http.ResponseWriter, id string, obj map[string]any) bool {
	segs := strings.Split(id, "/")
	name := segs[len(segs)-1]
	props, _ := obj["properties"].(map[string]any)
	mode, _ := props["createMode"].(string)
	v := s.deletedVaultNamed(name)
	recover := strings.EqualFold(mode, "recover")
	switch {
	case v == nil && recover:
		armError(w, http.StatusNotFound, "SoftDeletedVaultDoesNotExist", fmt.Sprintf("A soft deleted vault with the given name '%s' does not exist. Ensure that the name for the vault that is being attempted to recover is in a recoverable state.", name), "")
		return true
	case v == nil:
		return false
	case !recover:
		armError(w, http.StatusConflict, "ConflictError", fmt.Sprintf("A vault with the same name already exists in deleted state. Recover the vault '%s' (createMode: recover) or purge it first. Follow this link https://go.microsoft.com/fwlink/?linkid=2149745 for more information on soft delete.", name), "")
		return true
	case !strings.EqualFold(v.Vault.ID, id):
		armError(w, http.StatusConflict, "ConflictError", fmt.Sprintf("The deleted vault '%s' can only be recovered as '%s'.", name, v.Vault.ID), "")
		return true
	case v.Purging != "":
		armError(w, http.StatusConflict, "ConflictError", fmt.Sprintf("The deleted vault '%s' is being purged.", name), "")
		return true
	}
	delete(s.deleted, lower(name))
	now := s.opts.Now().UTC()
	res := v.Vault
	res.ETag, res.Modified, res.State, res.Op = newETag(), now, stateSucceeded, ""
	res.d = s.descriptorFor(res.ARMType, res.APIVersion)
	if res.d == nil {
		return false
	}
	s.resources[lower(res.ID)] = res
	s.render(res)
	s.persist()
	w.Header().Set("ETag", res.ETag)
	writeRaw(w, http.StatusOK, res.rendered)
	return true
}

// deletedVaults answers the deletedVaults paths (GET of one, the
// subscription's list, POST purge); false when the path is not one.
func (s *Server) deletedVaults(w http.ResponseWriter, r *http.Request, segs []string) bool {
	n := len(segs)
	if n < 5 || !strings.EqualFold(segs[0], "subscriptions") || !strings.EqualFold(segs[2], "providers") || !strings.EqualFold(segs[3], "Microsoft.KeyVault") {
		return false
	}
	switch {
	case n == 5 && strings.EqualFold(segs[4], "deletedVaults"):
		if !s.vaultAPIVersion(w, r) {
			return true
		}
		if r.Method != http.MethodGet {
			armError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", r.Method+" is not allowed on a collection.", "")
			return true
		}
		s.listDeletedVaults(w, segs[1])
		return true
	case (n == 8 || n == 9 && strings.EqualFold(segs[8], "purge")) && strings.EqualFold(segs[4], "locations") && strings.EqualFold(segs[6], "deletedVaults"):
	default:
		return false
	}
	if !s.vaultAPIVersion(w, r) {
		return true
	}
	sub, loc, name := segs[1], segs[5], segs[7]
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.deletedVaultNamed(name)
	if v != nil && (!strings.EqualFold(v.Sub, sub) || !strings.EqualFold(v.Location, strings.ReplaceAll(loc, " ", ""))) {
		v = nil
	}
	switch {
	case n == 8 && r.Method != http.MethodGet, n == 9 && r.Method != http.MethodPost:
		armError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", fmt.Sprintf("The method %s is not allowed for %s.", r.Method, deletedVaultType), "")
	case v == nil:
		armError(w, http.StatusNotFound, "DeletedVaultNotFound", fmt.Sprintf(deletedVaultNotFound, name), "")
	case n == 8:
		writeJSON(w, http.StatusOK, v.body())
	default:
		s.purge(w, r, v)
	}
	return true
}

// vaultAPIVersion checks the api-version against the ones the vaults
// serve (deletedVaults are in the same swagger).
func (s *Server) vaultAPIVersion(w http.ResponseWriter, r *http.Request) bool {
	av := r.URL.Query().Get("api-version")
	for _, rt := range s.routes {
		if !strings.EqualFold(rt.armType, vaultType) {
			continue
		}
		if _, ok := rt.byVersion[av]; ok {
			return true
		}
		armError(w, http.StatusBadRequest, "InvalidApiVersionParameter", fmt.Sprintf("The api-version '%s' is invalid. The supported versions are '%s'.", av, strings.Join(rt.versions, ",")), "")
		return false
	}
	armError(w, http.StatusNotFound, "InvalidResourceType", "The resource type 'deletedVaults' could not be found in the namespaces this emulator serves.", "")
	return false
}

func (s *Server) listDeletedVaults(w http.ResponseWriter, sub string) {
	s.mu.Lock()
	var names []string
	for k := range s.deleted {
		names = append(names, k)
	}
	sort.Strings(names)
	items := []any{}
	for _, k := range names {
		if v := s.deletedVaultNamed(k); v != nil && strings.EqualFold(v.Sub, sub) {
			items = append(items, v.body())
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"value": items})
}

// purge starts a deleted vault's purge: 202 with a Location at
// operationResults, as recorded; the name is free when it ends. The caller
// holds s.mu.
func (s *Server) purge(w http.ResponseWriter, r *http.Request, v *deletedVault) {
	if v.Purging != "" {
		if op := s.ops[v.Purging]; op != nil && op.Status == "InProgress" {
			s.purgeHeaders(w, r, op)
			w.WriteHeader(http.StatusAccepted)
			return
		}
	}
	holder := &resource{ID: v.id(), ARMType: deletedVaultType, APIVersion: r.URL.Query().Get("api-version"), Desired: map[string]any{"location": v.Location}}
	op := s.startOp(holder, verbPurge, styleLocation)
	v.Purging = op.ID
	s.persist()
	s.purgeHeaders(w, r, op)
	w.WriteHeader(http.StatusAccepted)
}

func (s *Server) purgeHeaders(w http.ResponseWriter, r *http.Request, op *operation) {
	w.Header().Set("Location", baseURL(r)+"/subscriptions/"+op.Sub+"/providers/Microsoft.KeyVault/locations/"+op.Region+"/operationResults/"+op.ID+"?api-version="+op.APIVersion)
	w.Header().Set("Retry-After", s.retryAfter())
}

// purged ends a purge operation: the deleted vault and its name are gone.
// The caller holds s.mu.
func (s *Server) purged(op *operation) {
	for k, v := range s.deleted {
		if v.Purging == op.ID {
			if op.Fail {
				v.Purging = ""
				continue
			}
			delete(s.deleted, k)
		}
	}
}

// Native reports whether the emulator serves a path beyond its
// Descriptors' types — Key Vault's deletedVaults (one, the subscription's
// list, a purge) — with the path's resource type and the served type whose
// api-versions it answers to (conformance counts these steps as served).
func Native(path string) (armType, versionsOf string, ok bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	n := len(segs)
	if n < 5 || !strings.EqualFold(segs[0], "subscriptions") || !strings.EqualFold(segs[2], "providers") || !strings.EqualFold(segs[3], "Microsoft.KeyVault") {
		return "", "", false
	}
	if n == 5 && strings.EqualFold(segs[4], "deletedVaults") ||
		(n == 8 || n == 9 && strings.EqualFold(segs[8], "purge")) && strings.EqualFold(segs[4], "locations") && strings.EqualFold(segs[6], "deletedVaults") {
		return deletedVaultType, vaultType, true
	}
	return "", "", false
}
