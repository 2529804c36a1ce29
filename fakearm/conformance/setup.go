package conformance

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/recording"
)

// setup is state a recording implies existed before it started.
type setup struct {
	path, body string
	// deleting: the resource was being deleted (its deletion is started,
	// and driven to its end after the step).
	deleting bool
	// softDeleted: the resource (a Key Vault) had been deleted and was
	// kept as a deleted vault (it is created and deleted before the step).
	softDeleted bool
	why         string
}

// setupsOf finds, by step index, the resources a recording finds already
// there:
//
//   - the first write of a resource is a PUT answered 200 (an update), and
//     no PUT in the recording created its resource group: it existed;
//   - the first PUT of a resource group is answered 409
//     ResourceGroupBeingDeleted: it existed and was being deleted;
//   - a GET of a Key Vault's deleted vault is answered 200 before the
//     recording wrote the vault it names (properties.vaultId): that vault
//     had been deleted before the recording (ASO's createOrRecover flows
//     start so: Test_KeyVault_WhenPurgeSpecified_PurgesSuccessfully.yaml
//     #2, Test_KeyVault_OwnerIsARMID_RecoversSuccessfully.yaml #2; the
//     vault is created from the recording's first PUT of it, without its
//     createMode, and deleted).
//
// The replay creates them before the step, without comparing.
func setupsOf(c *recording.Cassette, steps []Step) map[int]setup {
	out := map[int]setup{}
	created := map[string]bool{}
	touched := map[string]bool{}
	for si, st := range steps {
		if st.Kind == Read {
			if id, body, ok := deletedBefore(c, st, touched); ok {
				touched[strings.ToLower(id)] = true
				out[si] = setup{path: id, body: body, softDeleted: true, why: "a GET of its deleted vault is answered 200 before the recording wrote it: it had been deleted"}
			}
			continue
		}
		if st.Kind != Mutation {
			continue
		}
		it := c.Interactions[st.Interactions[0]]
		lp := strings.ToLower(st.Path)
		first := !touched[lp]
		touched[lp] = true
		code := it.Response.Code
		if first && it.Request.Method == http.MethodPut {
			switch {
			case code == http.StatusOK && !created[groupOf(lp)]:
				out[si] = setup{path: st.Path, body: it.Request.Body, why: "its first PUT is answered 200: it existed"}
			case code == http.StatusConflict && errorCode(object([]byte(it.Response.Body))) == "ResourceGroupBeingDeleted":
				out[si] = setup{path: st.Path, body: it.Request.Body, deleting: true, why: "its first PUT is answered 409 ResourceGroupBeingDeleted: it was being deleted"}
			}
		}
		if it.Request.Method == http.MethodPut && code == http.StatusCreated {
			created[lp] = true
		}
	}
	return out
}

// deletedBefore is, for a Read step of a Key Vault deleted vault answered
// 200, the id of the vault it names and the body of the recording's first
// PUT of it without createMode, when the recording had not written that
// vault yet.
func deletedBefore(c *recording.Cassette, st Step, touched map[string]bool) (string, string, bool) {
	if t, _, ok := fakearm.Native(st.Path); !ok || t != "Microsoft.KeyVault/deletedVaults" || st.Method != http.MethodGet {
		return "", "", false
	}
	it := c.Interactions[st.Interactions[0]]
	if it.Response.Code != http.StatusOK {
		return "", "", false
	}
	props, _ := object([]byte(it.Response.Body))["properties"].(map[string]any)
	id, _ := props["vaultId"].(string)
	if id == "" || touched[strings.ToLower(id)] {
		return "", "", false
	}
	for _, o := range c.Interactions {
		u, err := url.Parse(o.Request.URL)
		if err != nil || o.Request.Method != http.MethodPut || !strings.EqualFold(u.Path, id) {
			continue
		}
		var body map[string]any
		if json.Unmarshal([]byte(o.Request.Body), &body) != nil {
			return "", "", false
		}
		if p, ok := body["properties"].(map[string]any); ok {
			delete(p, "createMode")
		}
		b, err := json.Marshal(body)
		return id, string(b), err == nil
	}
	return "", "", false
}

// groupOf is the resource group path of a lower-case resource path, or
// "".
func groupOf(lp string) string {
	segs := strings.Split(strings.Trim(lp, "/"), "/")
	if len(segs) >= 4 && segs[0] == "subscriptions" && segs[2] == "resourcegroups" {
		return "/" + strings.Join(segs[:4], "/")
	}
	return ""
}

// setup creates what a recording finds already there; it returns what it
// did, for the report.
func (r *replayer) setup(s setup) string {
	d, ok := r.find(s.path)
	if !ok {
		return "not created (type not served): " + s.path
	}
	v := r.served(d)
	_, hd, _ := r.send(http.MethodPut, s.path, v, s.body)
	r.drive(hd, s.path)
	what := "PUT " + s.path
	if s.softDeleted {
		_, hd, _ = r.send(http.MethodDelete, s.path, v, "")
		r.drive(hd, s.path)
		what += ", DELETE"
	}
	if s.deleting {
		_, hd, _ = r.send(http.MethodDelete, s.path, v, "")
		r.pending = append(r.pending, hd)
		what += ", DELETE"
	}
	return what + " (" + s.why + ")"
}
