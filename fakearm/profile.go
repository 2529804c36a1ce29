package fakearm

import (
	"encoding/json"
	"fmt"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/armature-dev/armature/generated/profiles"
	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// The emulator applies the behaviour profiles of generated/profiles
// (package recording): how real ARM answers each type, learned from
// recordings, examples and the swagger. Where a type has no profile, the
// swagger decides (LRO flags, final-state-via) as before.

// defaultProfiles loads the generated profiles.
func defaultProfiles() (*recording.ProfileSet, error) {
	set, err := recording.LoadProfiles(profiles.Files)
	if err != nil {
		return nil, fmt.Errorf("fakearm: generated/profiles: %w", err)
	}
	return set, nil
}

// profileOf returns the profile of a descriptor's type, or nil.
func (s *Server) profileOf(d *descriptor.Descriptor) *recording.Profile {
	return s.profiles.For(d.ARMType, d.APIVersion)
}

// answerFor returns the profile's answer to a verb, or nil when there is
// no profile for it. created tells a PUT that creates from one that
// updates.
func (s *Server) answerFor(d *descriptor.Descriptor, verb string, created bool) *recording.Answer {
	p := s.profileOf(d)
	if p == nil {
		return nil
	}
	switch verb {
	case http.MethodPut:
		if created {
			return p.Create
		}
		return p.Update
	case http.MethodPatch:
		return p.Patch
	case http.MethodDelete:
		return p.Delete
	}
	return nil
}

// styleOf is the operation style of a long-running answer.
func styleOf(a *recording.Answer) string {
	switch {
	case a.AsyncOperation && a.Location == recording.LocationOperation:
		return styleBoth
	case a.AsyncOperation:
		return styleAsync
	}
	return styleLocation
}

// profileError writes a profile's error, with ARM's error body.
func profileError(w http.ResponseWriter, e *recording.Error, message, target string) {
	if e.Gateway {
		w.Header().Set("x-ms-failure-cause", "gateway")
	}
	body := map[string]any{"code": e.Code, "message": message}
	if target != "" {
		body["target"] = target
	}
	writeJSON(w, e.Status, map[string]any{"error": body})
}

// checkName applies an enforced name rule; false means it answered.
func (s *Server) checkName(w http.ResponseWriter, d *descriptor.Descriptor, name string) bool {
	p := s.profileOf(d)
	if p == nil || p.Name == nil || p.Name.Error == nil {
		return true
	}
	n := p.Name
	ok := (n.MinLength == 0 || len(name) >= n.MinLength) && (n.MaxLength == 0 || len(name) <= n.MaxLength)
	if re, err := regexp.Compile(n.Pattern); ok && n.Pattern != "" && err == nil {
		ok = re.MatchString(name)
	}
	if ok {
		return true
	}
	profileError(w, n.Error, fmt.Sprintf("%s is not a valid name for %s: it must match %s, %d to %d characters.", name, d.ARMType, n.Pattern, n.MinLength, n.MaxLength), "")
	return false
}

// checkLocation applies a profile's list of regions to a create; false
// means it answered.
func (s *Server) checkLocation(w http.ResponseWriter, d *descriptor.Descriptor, body map[string]any) bool {
	p := s.profileOf(d)
	loc, _ := body["location"].(string)
	if p == nil || p.Locations == nil || loc == "" {
		return true
	}
	norm := normalizeRegion(loc)
	for _, a := range p.Locations.Allowed {
		if normalizeRegion(a) == norm {
			return true
		}
	}
	profileError(w, &p.Locations.Error, fmt.Sprintf("The provided location '%s' is not available for %s. List of available regions is '%s'.", loc, d.ARMType, strings.Join(p.Locations.Allowed, ",")), "")
	return false
}

func normalizeRegion(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }

// beingDeleted answers a PUT of a resource being deleted.
func (s *Server) beingDeleted(w http.ResponseWriter, d *descriptor.Descriptor, id string) {
	if p := s.profileOf(d); p != nil && p.BeingDeleted != nil {
		profileError(w, p.BeingDeleted, fmt.Sprintf("'%s' is in deprovisioning state and cannot perform this operation.", id), "")
		return
	}
	armError(w, http.StatusConflict, "Conflict", fmt.Sprintf("The resource '%s' is being deleted.", id), "")
}

// profileDefaults adds the values the profile says ARM fills in, where
// the body has none. They come before the examples' ServerDefaults: the
// recordings are the better source.
func (s *Server) profileDefaults(d *descriptor.Descriptor, body map[string]any) {
	p := s.profileOf(d)
	if p == nil {
		return
	}
	for _, def := range p.Defaults {
		path, err := descriptor.ParsePath(def.Path)
		if err != nil {
			continue
		}
		parent, last := slot(body, path, true)
		if parent == nil {
			continue
		}
		var v any
		if err := json.Unmarshal(def.Value, &v); err == nil {
			parent[last] = v
		}
	}
}

// profileAnswered adds the members the profile says ARM answers whatever
// the request said: members the swagger lacks, with the resource's names
// in place of the recorded ones, and writeOnly or secret members ARM
// answers masked or echoed. A member the body has is kept.
func (s *Server) profileAnswered(res *resource, body map[string]any) {
	p := s.profileOf(res.d)
	if p == nil || len(p.Answered) == 0 {
		return
	}
	segs := strings.Split(strings.Trim(res.ID, "/"), "/")
	pairs := []string{"{name}", segs[len(segs)-1]}
	for i := 0; i+1 < len(segs); i++ {
		switch strings.ToLower(segs[i]) {
		case "resourcegroups":
			pairs = append(pairs, "{resourceGroup}", segs[i+1])
		case "subscriptions":
			pairs = append(pairs, "{subscriptionId}", segs[i+1])
		}
	}
	loc, _ := res.Desired["location"].(string)
	pairs = append(pairs, "{location}", loc)
	r := strings.NewReplacer(pairs...)
	for _, m := range p.Answered {
		path, err := descriptor.ParsePath(m.Path)
		if err != nil {
			continue
		}
		parent, last := slot(body, path, true)
		if parent == nil {
			continue
		}
		if m.Echo {
			if sent, ok, _ := unstructured.NestedFieldNoCopy(res.Desired, path...); ok && sent != nil {
				parent[last] = sent
			}
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(r.Replace(string(m.Value))), &v); err == nil {
			parent[last] = v
		}
	}
}

// deleteBlocked answers a DELETE the profile refuses while children of
// some types exist; false means it did not answer. The caller holds s.mu.
func (s *Server) deleteBlocked(w http.ResponseWriter, d *descriptor.Descriptor, key string) bool {
	p := s.profileOf(d)
	if p == nil || p.DeleteBlocked == nil {
		return false
	}
	prefix := key + "/"
	for k, child := range s.resources {
		if !strings.HasPrefix(k, prefix) || child.d == nil {
			continue
		}
		for _, t := range p.DeleteBlocked.Children {
			if strings.EqualFold(child.d.ARMType, t) {
				profileError(w, &p.DeleteBlocked.Error, fmt.Sprintf("Cannot delete resource while nested resources exist. Some existing nested resource IDs include: '%s'.", child.ID), "")
				return true
			}
		}
	}
	return false
}

// operationShape adds to a finished operation's status what the
// profile says the type's operations carry: the resource under
// properties.output, other members. The caller holds s.mu.
func (s *Server) operationShape(op *operation, body map[string]any) {
	res := s.resources[op.Resource]
	if res == nil || res.d == nil {
		return
	}
	p := s.profileOf(res.d)
	if p == nil || p.Operation == nil {
		return
	}
	for _, m := range p.Operation.Members {
		var v any
		if json.Unmarshal(m.Value, &v) == nil {
			body[m.Path] = v
		}
	}
	if p.Operation.Output && op.Verb != http.MethodDelete {
		var out any
		if json.Unmarshal(res.rendered, &out) == nil {
			body["properties"] = map[string]any{"output": out}
		}
	}
}

// regionOf is the region of a resource, for its operation URLs: its own
// location, else its nearest ancestor's, else "global". The caller holds
// s.mu.
func (s *Server) regionOf(res *resource) string {
	for id := res.ID; id != ""; id = parentID(id) {
		r := res
		if id != res.ID {
			r = s.resources[strings.ToLower(id)]
		}
		if r == nil {
			continue
		}
		if loc, _ := r.Desired["location"].(string); loc != "" {
			return url.PathEscape(loc)
		}
	}
	return "global"
}

// parentID drops the last type/name pair of an id, and a provider
// namespace before it ("" above a subscription).
func parentID(id string) string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	if len(segs) <= 2 {
		return ""
	}
	segs = segs[:len(segs)-2]
	if len(segs) >= 2 && strings.EqualFold(segs[len(segs)-2], "providers") {
		segs = segs[:len(segs)-2]
	}
	return "/" + strings.Join(segs, "/")
}

// clock runs operations on the clock: an operation ends LRODuration after
// it started, whether or not anyone polls it. The caller holds s.mu.
func (s *Server) clock(op *operation) {
	if s.opts.LRODuration < 0 {
		return
	}
	wait := op.Started.Add(s.opts.LRODuration).Sub(s.opts.Now().UTC())
	time.AfterFunc(max(wait, 0), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.finish(op)
	})
}
