package fakearm_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/armature-dev/armature/fakearm"
)

const (
	softVault    = rg + "/providers/Microsoft.KeyVault/vaults/kv-soft"
	deletedVault = sub + "/providers/Microsoft.KeyVault/locations/westeurope/deletedVaults/kv-soft"
)

// vaultBody is a vault PUT body; createMode is left out when empty.
func vaultBody(createMode string, tags map[string]any, props map[string]any) map[string]any {
	p := map[string]any{
		"tenantId":       "00000000-0000-0000-0000-000000000000",
		"sku":            map[string]any{"family": "A", "name": "standard"},
		"accessPolicies": []any{},
	}
	for k, v := range props {
		p[k] = v
	}
	if createMode != "" {
		p["createMode"] = createMode
	}
	return map[string]any{"location": "westeurope", "tags": tags, "properties": p}
}

// clock is a settable time for the emulator.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// expect checks a response's status and, for an error, its ARM code.
func expect(t *testing.T, what string, resp *http.Response, status int, code string) map[string]any {
	t.Helper()
	if code != "" {
		got, _ := armCode(t, resp)
		if resp.StatusCode != status || got != code {
			t.Fatalf("%s: %d %s, want %d %s", what, resp.StatusCode, got, status, code)
		}
		return nil
	}
	if resp.StatusCode != status {
		t.Fatalf("%s: %d, want %d", what, resp.StatusCode, status)
	}
	if resp.ContentLength == 0 {
		return nil
	}
	return decode(t, resp)
}

func created(t *testing.T, what string, resp *http.Response) {
	t.Helper()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		t.Fatalf("%s: %d, want 200 or 201", what, resp.StatusCode)
	}
}

// TestKeyVaultSoftDelete drives a vault through soft delete over HTTP: a
// deleted vault keeps its name (409 ConflictError, also in another
// resource group) until createMode recover brings it back as it was, or a
// purge frees the name.
func TestKeyVaultSoftDelete(t *testing.T) {
	c := &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{Now: c.Now, LRODuration: -1}})
	e.resourceGroup()
	other := sub + "/resourceGroups/team-b"
	created(t, "PUT team-b", e.do(http.MethodPut, other, rgAPI, map[string]any{"location": "westeurope"}))

	created(t, "PUT vault", e.do(http.MethodPut, softVault, kvAPI, vaultBody("", map[string]any{"v": "1"}, nil)))
	expect(t, "GET deleted vault before any delete", e.do(http.MethodGet, deletedVault, kvAPI, nil), http.StatusNotFound, "DeletedVaultNotFound")

	expect(t, "DELETE vault", e.do(http.MethodDelete, softVault, kvAPI, nil), http.StatusOK, "")
	expect(t, "GET deleted vault's id", e.do(http.MethodGet, softVault, kvAPI, nil), http.StatusNotFound, "ResourceNotFound")
	got := expect(t, "GET deleted vault", e.do(http.MethodGet, deletedVault, kvAPI, nil), http.StatusOK, "")
	props, _ := got["properties"].(map[string]any)
	if !strings.EqualFold(got["id"].(string), deletedVault) || got["name"] != "kv-soft" || got["type"] != "Microsoft.KeyVault/deletedVaults" ||
		!strings.EqualFold(props["vaultId"].(string), softVault) || props["location"] != "westeurope" {
		t.Errorf("deleted vault: %v", got)
	}
	deleted, _ := time.Parse(time.RFC3339, props["deletionDate"].(string))
	purgeAt, _ := time.Parse(time.RFC3339, props["scheduledPurgeDate"].(string))
	if !deleted.Equal(c.Now()) || purgeAt.Sub(deleted) != 90*24*time.Hour {
		t.Errorf("deletionDate %v, scheduledPurgeDate %v: want now and 90 days later", props["deletionDate"], props["scheduledPurgeDate"])
	}
	list := expect(t, "LIST deleted vaults", e.do(http.MethodGet, sub+"/providers/Microsoft.KeyVault/deletedVaults", kvAPI, nil), http.StatusOK, "")
	if items, _ := list["value"].([]any); len(items) != 1 {
		t.Errorf("LIST deleted vaults: %v", list)
	}

	expect(t, "PUT of the held name", e.do(http.MethodPut, softVault, kvAPI, vaultBody("", nil, nil)), http.StatusConflict, "ConflictError")
	expect(t, "PUT of the held name in another group", e.do(http.MethodPut, other+"/providers/Microsoft.KeyVault/vaults/KV-SOFT", kvAPI, vaultBody("default", nil, nil)),
		http.StatusConflict, "ConflictError")

	back := expect(t, "PUT recover", e.do(http.MethodPut, softVault, kvAPI, vaultBody("recover", map[string]any{"v": "2"}, nil)), http.StatusOK, "")
	if tags, _ := back["tags"].(map[string]any); tags["v"] != "1" {
		t.Errorf("recovered vault's tags %v, want the deleted vault's {v: 1}", back["tags"])
	}
	if p, _ := back["properties"].(map[string]any); p["provisioningState"] != "Succeeded" {
		t.Errorf("recovered vault's provisioningState %v, want Succeeded", p["provisioningState"])
	}
	expect(t, "GET recovered vault", e.do(http.MethodGet, softVault, kvAPI, nil), http.StatusOK, "")
	expect(t, "GET deleted vault after recover", e.do(http.MethodGet, deletedVault, kvAPI, nil), http.StatusNotFound, "DeletedVaultNotFound")

	expect(t, "DELETE vault again", e.do(http.MethodDelete, softVault, kvAPI, nil), http.StatusOK, "")
	resp := e.do(http.MethodPost, deletedVault+"/purge", kvAPI, nil)
	if resp.StatusCode != http.StatusAccepted || !strings.Contains(resp.Header.Get("Location"), "/providers/Microsoft.KeyVault/locations/westeurope/operationResults/") ||
		resp.Header.Get("Azure-AsyncOperation") != "" {
		t.Fatalf("POST purge: %d Location %q Azure-AsyncOperation %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Azure-AsyncOperation"))
	}
	expect(t, "PUT while the purge runs", e.do(http.MethodPut, softVault, kvAPI, vaultBody("", nil, nil)), http.StatusConflict, "ConflictError")
	e.wait(resp)
	expect(t, "GET deleted vault after purge", e.do(http.MethodGet, deletedVault, kvAPI, nil), http.StatusNotFound, "DeletedVaultNotFound")
	created(t, "PUT after purge", e.do(http.MethodPut, softVault, kvAPI, vaultBody("default", nil, nil)))
}

// TestKeyVaultSoftDeleteCases: what else decides whether a name is held.
func TestKeyVaultSoftDeleteCases(t *testing.T) {
	cases := map[string]struct {
		reason string
		// before runs after the vault's creation, with the clock.
		before     func(e *env, c *clock)
		props      map[string]any
		createMode string
		// path is the vault PUT at the end; empty: the same vault.
		path   string
		status int
		code   string
	}{
		"RecoverWithoutDeletedVault": {
			reason:     "recover needs a deleted vault of the name",
			before:     func(e *env, c *clock) {},
			createMode: "recover",
			path:       rg + "/providers/Microsoft.KeyVault/vaults/kv-never",
			status:     http.StatusNotFound,
			code:       "SoftDeletedVaultDoesNotExist",
		},
		"SoftDeleteOff": {
			reason: "a vault with enableSoftDelete false is gone at once",
			before: func(e *env, c *clock) { e.do(http.MethodDelete, softVault, kvAPI, nil) },
			props:  map[string]any{"enableSoftDelete": false},
			status: http.StatusCreated,
		},
		"RetentionOver": {
			reason: "after softDeleteRetentionInDays the deleted vault is purged",
			before: func(e *env, c *clock) {
				e.do(http.MethodDelete, softVault, kvAPI, nil)
				c.add(7*24*time.Hour + time.Second)
			},
			props:  map[string]any{"softDeleteRetentionInDays": 7},
			status: http.StatusCreated,
		},
		"RetentionNotOver": {
			reason: "within softDeleteRetentionInDays the name is held",
			before: func(e *env, c *clock) {
				e.do(http.MethodDelete, softVault, kvAPI, nil)
				c.add(6 * 24 * time.Hour)
			},
			props:  map[string]any{"softDeleteRetentionInDays": 7},
			status: http.StatusConflict,
			code:   "ConflictError",
		},
		"GroupDeleted": {
			reason: "deleting the resource group soft-deletes its vaults",
			before: func(e *env, c *clock) {
				if resp := e.do(http.MethodDelete, rg, rgAPI, nil); resp.StatusCode == http.StatusAccepted {
					e.wait(resp)
				}
				e.resourceGroup()
			},
			status: http.StatusConflict,
			code:   "ConflictError",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
			e := start(t, fakearm.StartOptions{Options: fakearm.Options{Now: c.Now, LRODuration: -1}})
			e.resourceGroup()
			created(t, "PUT vault", e.do(http.MethodPut, softVault, kvAPI, vaultBody("", nil, tc.props)))
			tc.before(e, c)
			path := softVault
			if tc.path != "" {
				path = tc.path
			}
			resp := e.do(http.MethodPut, path, kvAPI, vaultBody(tc.createMode, nil, nil))
			if tc.status == http.StatusCreated {
				created(t, tc.reason, resp)
				return
			}
			expect(t, tc.reason, resp, tc.status, tc.code)
		})
	}
}

// TestDeletedVaultSurvivesRestart: the state file keeps deleted vaults.
func TestDeletedVaultSurvivesRestart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{StateFile: file}})
	e.resourceGroup()
	created(t, "PUT vault", e.do(http.MethodPut, softVault, kvAPI, vaultBody("", nil, nil)))
	expect(t, "DELETE vault", e.do(http.MethodDelete, softVault, kvAPI, nil), http.StatusOK, "")
	_ = e.arm.Close()
	e2 := start(t, fakearm.StartOptions{Options: fakearm.Options{StateFile: file}})
	expect(t, "GET deleted vault after restart", e2.do(http.MethodGet, deletedVault, kvAPI, nil), http.StatusOK, "")
	expect(t, "PUT after restart", e2.do(http.MethodPut, softVault, kvAPI, vaultBody("", nil, nil)), http.StatusConflict, "ConflictError")
}
