package fakearm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// admin serves /_admin/: the journal, the counters, the faults, the stored
// resources and a reset. It needs no token.
//
//	GET    /_admin/journal    the journal, oldest first
//	DELETE /_admin/journal    forget journal and counters
//	GET    /_admin/counters   requests by method and by "METHOD status"
//	GET    /_admin/faults     the injected faults
//	POST   /_admin/faults     replace them (JSON of Faults)
//	POST   /_admin/faults/codes  add an ARM error by code (JSON of CodeFault)
//	POST   /_admin/apps       register an Azure AD app (JSON of App)
//	POST   /_admin/unregister unregister a provider: {"subscription","namespace"}
//	GET    /_admin/resources  the ids of the stored resources
//	POST   /_admin/reset      forget every resource and operation
func (s *Server) admin(w http.ResponseWriter, r *http.Request) {
	switch r.Method + " " + r.URL.Path {
	case "GET /_admin/journal":
		writeJSON(w, http.StatusOK, s.Journal())
	case "DELETE /_admin/journal":
		s.ResetJournal()
		w.WriteHeader(http.StatusNoContent)
	case "GET /_admin/counters":
		writeJSON(w, http.StatusOK, s.Counts())
	case "GET /_admin/faults":
		writeJSON(w, http.StatusOK, s.CurrentFaults())
	case "POST /_admin/faults":
		var f Faults
		if err := json.NewDecoder(r.Body).Decode(&f); err != nil {
			armError(w, http.StatusBadRequest, "InvalidRequestContent", err.Error(), "")
			return
		}
		s.SetFaults(f)
		writeJSON(w, http.StatusOK, f)
	case "POST /_admin/faults/codes":
		var f CodeFault
		if err := json.NewDecoder(r.Body).Decode(&f); err != nil || f.Code == "" {
			armError(w, http.StatusBadRequest, "InvalidRequestContent", "a code fault needs a code", "")
			return
		}
		s.AddCodeFault(f)
		writeJSON(w, http.StatusOK, s.CurrentFaults())
	case "POST /_admin/apps":
		var a App
		if err := json.NewDecoder(r.Body).Decode(&a); err != nil || a.Tenant == "" || a.ClientID == "" {
			armError(w, http.StatusBadRequest, "InvalidRequestContent", "an app needs a tenant and a clientId", "")
			return
		}
		s.RegisterApp(a)
		w.WriteHeader(http.StatusNoContent)
	case "POST /_admin/unregister":
		var p struct{ Subscription, Namespace string }
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil || p.Subscription == "" || p.Namespace == "" {
			armError(w, http.StatusBadRequest, "InvalidRequestContent", "give a subscription and a namespace", "")
			return
		}
		s.Unregister(p.Subscription, p.Namespace)
		w.WriteHeader(http.StatusNoContent)
	case "GET /_admin/resources":
		writeJSON(w, http.StatusOK, s.ResourceIDs())
	case "POST /_admin/reset":
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
	default:
		armError(w, http.StatusNotFound, "NotFound", "unknown admin endpoint "+r.Method+" "+r.URL.Path, "")
	}
}

// ResourceIDs returns the ids of the stored resources, sorted.
func (s *Server) ResourceIDs() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ids := make([]string, 0, len(s.resources))
	for _, r := range s.resources {
		ids = append(ids, r.ID)
	}
	sort.Strings(ids)
	return ids
}

// Resource returns the GET body of a stored resource by id, or nil.
func (s *Server) Resource(id string) map[string]any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	res := s.resources[lower(id)]
	if res == nil {
		return nil
	}
	var out map[string]any
	_ = json.Unmarshal(res.rendered, &out)
	return out
}

// Reset forgets every resource and operation.
func (s *Server) Reset() {
	s.mu.Lock()
	s.resources = map[string]*resource{}
	s.ops = map[string]*operation{}
	s.deleted = nil
	s.persist()
	s.mu.Unlock()
}

// Mutate changes a stored resource as someone else would in Azure (the
// portal, another tool): fn edits its desired body; the GET body is
// rendered again with a new etag. Tests use it to make drift.
func (s *Server) Mutate(id string, fn func(body map[string]any)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.resources[lower(id)]
	if res == nil {
		return fmt.Errorf("fakearm: no resource %s", id)
	}
	fn(res.Desired)
	res.ETag = newETag()
	res.Modified = s.opts.Now()
	s.render(res)
	s.persist()
	return nil
}

// Remove deletes a stored resource and its children as someone else would
// in Azure, without an operation.
func (s *Server) Remove(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := lower(id)
	if s.resources[key] == nil {
		return fmt.Errorf("fakearm: no resource %s", id)
	}
	for k := range s.resources {
		if k == key || strings.HasPrefix(k, key+"/") {
			delete(s.resources, k)
		}
	}
	s.persist()
	return nil
}
