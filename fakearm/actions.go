package fakearm

import (
	"bytes"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// actionState is what POST actions keep beside the resources. It is
// guarded by Server.mu and saved in the StateFile with the resources, so a
// restarted emulator hands out the keys regenerateKey last made.
type actionState struct {
	// gens is the generation of every secret slot (a response path such
	// as keys[0].value) of a resource incarnation (lower-case id and
	// creation time): regenerating a key bumps it.
	gens map[string]map[string]int
	// results are the responses of action operations in flight, by
	// operation id, answered when the operation ends.
	results map[string][]byte
}

// postAction answers POST <resource id>/<action> for an action of the
// resource type's Descriptor (one or two path segments, as
// rollingUpgrades/cancel). It returns the ARM type for the journal and
// false when the path names no action, so the request is routed as usual.
func (s *Server) postAction(w http.ResponseWriter, r *http.Request, segs []string, body []byte) (string, bool) {
	for n := 1; n <= 2 && n < len(segs); n++ {
		m, ok := find(s.routes, segs[:len(segs)-n])
		if !ok || m.list {
			continue
		}
		name := strings.Join(segs[len(segs)-n:], "/")
		if !m.route.hasAction(name) {
			continue
		}
		v := r.URL.Query().Get("api-version")
		d, ok := m.route.byVersion[v]
		if !ok {
			armError(w, http.StatusBadRequest, "InvalidApiVersionParameter", fmt.Sprintf("The api-version '%s' is invalid. The supported versions are '%s'.", v, strings.Join(m.route.versions, ",")), "")
			return m.route.armType, true
		}
		a, ok := d.Action(name)
		if !ok {
			armError(w, http.StatusNotFound, "InvalidResourceType", fmt.Sprintf("The action '%s' of %s is not served at api-version %s.", name, d.ARMType, v), "")
			return d.ARMType, true
		}
		if s.spend(w, r, segs) {
			s.runAction(w, r, m, d, a, body)
		}
		return d.ARMType, true
	}
	return "", false
}

func (rt *route) hasAction(name string) bool {
	for _, d := range rt.byVersion {
		if _, ok := d.Action(name); ok {
			return true
		}
	}
	return false
}

// runAction checks the request, performs the action on the stored
// resource and answers: 200 with the response, or 202 and an operation
// for a long-running action.
func (s *Server) runAction(w http.ResponseWriter, r *http.Request, m match, d *descriptor.Descriptor, a *descriptor.Action, body []byte) {
	req, query, rerr := actionRequest(a, r, body)
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.resources[strings.ToLower(m.id)]
	if res == nil || res.State == stateDeleting {
		notFound(w, m, d)
		return
	}
	if rerr != nil {
		rerr.write(w)
		return
	}
	if res.Op != "" {
		armError(w, http.StatusConflict, "AnotherOperationInProgress", fmt.Sprintf("An operation on '%s' is in progress; %s can run when it ends.", res.ID, a.Name), "")
		return
	}
	if strings.HasPrefix(strings.ToLower(a.Name), "regenerate") {
		if e := s.regenerate(res, a, req, query); e != nil {
			e.write(w)
			return
		}
	}
	out := s.respond(res, a, req)
	if !a.LongRunning {
		if out == nil {
			w.WriteHeader(http.StatusOK)
			return
		}
		writeRaw(w, http.StatusOK, out)
		return
	}
	op := s.startOp(res, http.MethodPost, style(http.MethodPost, a.FinalStateVia))
	if s.acts.results == nil {
		s.acts.results = map[string][]byte{}
	}
	s.acts.results[op.ID] = out
	s.persist()
	s.opHeaders(w, r, op)
	w.WriteHeader(http.StatusAccepted)
}

// actionResult answers the final poll of a finished action operation
// with the action's response (an empty 200 when it has none).
func (s *Server) actionResult(w http.ResponseWriter, op *operation) {
	if out := s.acts.results[op.ID]; out != nil {
		writeRaw(w, http.StatusOK, out)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// actionRequest decodes and validates the body and the query parameters,
// as ARM does: 400 InvalidRequestContent naming the first property at
// fault. Unknown query parameters are ignored, as ARM ignores them; a body
// sent to an action that takes none is ignored too.
func actionRequest(a *descriptor.Action, r *http.Request, body []byte) (any, map[string]string, *requestError) {
	query := map[string]string{}
	for k, vs := range r.URL.Query() {
		if k != "api-version" && len(vs) > 0 {
			query[k] = vs[0]
		}
	}
	var problems []descriptor.Problem
	for _, p := range descriptor.ValidateQuery(a.Query, query) {
		if p.Kind != descriptor.ProblemUnknown {
			problems = append(problems, p)
		}
	}
	var req any
	if len(bytes.TrimSpace(body)) > 0 && a.Request != nil {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&req); err != nil {
			return nil, nil, &requestError{status: http.StatusBadRequest, code: "InvalidRequestContent", message: "The request content was invalid and could not be deserialized: " + err.Error()}
		}
	}
	if a.Request != nil {
		problems = append(problems, a.Request.Validate(req)...)
	}
	if len(problems) == 0 {
		return req, query, nil
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.String()
	}
	return nil, nil, &requestError{status: http.StatusBadRequest, code: "InvalidRequestContent",
		message: fmt.Sprintf("The request content of %s was invalid: %s.", a.Name, strings.Join(msgs, "; ")), target: problems[0].Path.String()}
}

// incarnation names one life of a resource: a deleted and recreated
// resource gets new keys.
func incarnation(res *resource) string {
	return strings.ToLower(res.ID) + "@" + strconv.FormatInt(res.Created.UnixNano(), 10)
}

// secret is the current value of a secret slot: 64 bytes, base64, as a
// storage account key, stable until the slot is regenerated.
func (s *Server) secret(res *resource, slot string) string {
	inc := incarnation(res)
	sum := sha512.Sum512([]byte(inc + "|" + slot + "|" + strconv.Itoa(s.acts.gens[inc][slot])))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// regenerate bumps the secret slots a regenerate action names. The slots
// are the secret fields of the action's response; the request names them
// by a string value that equals a sibling of the slot (storage:
// {"keyName":"key1"} and keys[0].keyName = key1) or that starts the slot's
// name (Redis: {"keyType":"Primary"} and primaryKey). A request that names
// nothing regenerates every slot; one whose names match no slot is 400.
func (s *Server) regenerate(res *resource, a *descriptor.Action, req any, query map[string]string) *requestError {
	if a.Response == nil {
		return nil
	}
	var names []string
	var namePaths []string
	leaves(req, nil, func(path descriptor.Path, v string) {
		names, namePaths = append(names, v), append(namePaths, path.String())
	})
	for _, k := range slices.Sorted(maps.Keys(query)) {
		names, namePaths = append(names, query[k]), append(namePaths, k)
	}
	cur := s.synth(res, a.Response, nil, nil, a.Response.Root(), nil, -1)
	var hit []string
	secretSlots(a.Response, cur, nil, nil, nil, func(slot, table descriptor.Path, siblings map[string]any) {
		if len(names) == 0 {
			hit = append(hit, slot.String())
			return
		}
		for _, n := range names {
			if strings.HasPrefix(strings.ToLower(table.Last()), strings.ToLower(n)) {
				hit = append(hit, slot.String())
				return
			}
			for k, sv := range siblings {
				if f, _ := a.Response.Field(table.Parent().Child(k)); !f.Secret && fmt.Sprint(sv) != "" && strings.EqualFold(fmt.Sprint(sv), n) {
					hit = append(hit, slot.String())
					return
				}
			}
		}
	})
	if len(hit) == 0 {
		if len(names) == 0 {
			return nil
		}
		return &requestError{status: http.StatusBadRequest, code: "InvalidRequestContent",
			message: fmt.Sprintf("The request content of %s was invalid: '%s' names no key of %s.", a.Name, names[0], res.ID), target: namePaths[0]}
	}
	if s.acts.gens == nil {
		s.acts.gens = map[string]map[string]int{}
	}
	inc := incarnation(res)
	if s.acts.gens[inc] == nil {
		s.acts.gens[inc] = map[string]int{}
	}
	for _, slot := range hit {
		s.acts.gens[inc][slot]++
	}
	s.persist()
	return nil
}

// respond is the response body of an action, or nil when it has none.
func (s *Server) respond(res *resource, a *descriptor.Action, req any) []byte {
	if a.Response == nil {
		return nil
	}
	b, err := json.Marshal(s.synth(res, a.Response, nil, nil, a.Response.Root(), req, -1))
	if err != nil {
		return nil
	}
	return b
}
