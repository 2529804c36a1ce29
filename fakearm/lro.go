package fakearm

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// LRO styles, as the recordings show them.
const (
	// styleAsync: 201/200 (or 202 for DELETE) with Azure-AsyncOperation;
	// the operation answers {"status": ...}.
	styleAsync = "azure-async-operation"
	// styleLocation: 202 with Location; the Location URL answers 202 until
	// done, then 200 (with the resource for PUT).
	styleLocation = "location"
	// styleBoth: Azure-AsyncOperation and a Location that answers as in
	// styleLocation (DELETE in most providers, Compute's PUT).
	styleBoth = "both"
)

// operation is a long-running operation in flight.
type operation struct {
	ID        string `json:"id"`
	Resource  string `json:"resource"` // lower-case resource key
	Verb      string `json:"verb"`
	Style     string `json:"style"`
	Sub       string `json:"sub"`
	Namespace string `json:"namespace"`
	Remaining int    `json:"remaining"`
	Fail      bool   `json:"fail"`
	// FailCode, FailMessage and FailStatus are the error of an operation
	// that ends Failed (an injected operation fault, codes.go); empty:
	// OperationFailed, answered 400 at Location.
	FailCode    string    `json:"failCode,omitempty"`
	FailMessage string    `json:"failMessage,omitempty"`
	FailStatus  int       `json:"failStatus,omitempty"`
	Status      string    `json:"status"`
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended,omitempty"`
	// APIVersion is echoed in the operation URLs.
	APIVersion string `json:"apiVersion"`
	// Region is the resource's region, in the operation URLs.
	Region string `json:"region,omitempty"`
}

// longRunning reports whether the Descriptor marks a verb long-running, and
// its final-state-via.
func longRunning(d *descriptor.Descriptor, verb string) (bool, string) {
	for _, l := range d.LongRunning {
		if strings.EqualFold(l.Verb, verb) {
			return true, l.FinalStateVia
		}
	}
	return false, ""
}

// style picks the LRO style of a type without a profile (and of POST
// actions): Location when the swagger's final-state-via says so, else
// Azure-AsyncOperation (with Location for DELETE and POST). Types with a
// profile answer as it says (profile.go).
func style(verb, finalStateVia string) string {
	switch {
	case strings.EqualFold(finalStateVia, "location"):
		return styleLocation
	case verb == http.MethodDelete || verb == http.MethodPost:
		return styleBoth
	}
	return styleAsync
}

func (s *Server) startOp(res *resource, verb, style string) *operation {
	segs := strings.Split(strings.Trim(res.ID, "/"), "/")
	op := &operation{ID: newID(), Resource: strings.ToLower(res.ID), Verb: verb, Style: style, Remaining: s.opts.LROPolls,
		Status: "InProgress", Started: s.opts.Now().UTC(), APIVersion: res.APIVersion, Namespace: strings.Split(res.ARMType, "/")[0], Region: s.regionOf(res)}
	if len(segs) > 1 && strings.EqualFold(segs[0], "subscriptions") {
		op.Sub = segs[1]
	}
	op.Fail = s.CurrentFaults().FailLROs
	if f := s.operationFault(verb, res.ID); f != nil {
		op.Fail, op.FailCode, op.FailMessage, op.FailStatus = true, f.Code, f.Message, f.Status
	}
	s.ops[op.ID] = op
	s.clock(op)
	return op
}

// failure is the error of a Failed operation: its injected fault's, else
// OperationFailed; the status is what its Location answers (4xx: azcore
// keeps polling through 5xx).
func (op *operation) failure() (code, message string, status int) {
	code, message, status = op.FailCode, op.FailMessage, op.FailStatus
	if code == "" {
		code = "OperationFailed"
	}
	if message == "" {
		message = "The operation failed (injected fault)."
	}
	if status < 400 || status >= 500 {
		status = http.StatusBadRequest
	}
	return code, message, status
}

func (s *Server) retryAfter() string {
	if s.opts.RetryAfter < 0 {
		return "0"
	}
	return strconv.Itoa(int((s.opts.RetryAfter + time.Second - 1) / time.Second))
}

func baseURL(r *http.Request) string {
	scheme := "https"
	if r.TLS == nil {
		scheme = "http"
	}
	return scheme + "://" + r.Host
}

// opURLs returns the Azure-AsyncOperation and Location URLs of an operation.
func (s *Server) opURLs(r *http.Request, op *operation) (async, location string) {
	base := baseURL(r) + "/subscriptions/" + op.Sub
	q := "?api-version=" + op.APIVersion
	if strings.EqualFold(op.Namespace, "Microsoft.Resources") {
		return "", base + "/operationresults/" + op.ID + q
	}
	region := op.Region
	if region == "" {
		region = "westus2" // an operation saved by an older emulator
	}
	prefix := base + "/providers/" + op.Namespace + "/locations/" + region
	switch op.Style {
	case styleLocation:
		return "", prefix + "/asyncoperations/" + op.ID + "?monitor=true&api-version=" + op.APIVersion
	case styleBoth: // a POST's result is read at Location
		return prefix + "/operations/" + op.ID + q, prefix + "/operationResults/" + op.ID + q
	}
	return prefix + "/operations/" + op.ID + q, ""
}

func (s *Server) opHeaders(w http.ResponseWriter, r *http.Request, op *operation) {
	async, location := s.opURLs(r, op)
	if async != "" {
		w.Header().Set("Azure-AsyncOperation", async)
		w.Header().Set("Azure-AsyncNotification", "Enabled")
	}
	if location != "" {
		w.Header().Set("Location", location)
	}
	w.Header().Set("Retry-After", s.retryAfter())
}

// advance counts one observation of an operation and finishes it when its
// polls are used up or its time has come (see clock). The caller holds
// s.mu.
func (s *Server) advance(op *operation) {
	if op.Status != "InProgress" {
		return
	}
	due := s.opts.LRODuration >= 0 && !s.opts.Now().UTC().Before(op.Started.Add(s.opts.LRODuration))
	if op.Remaining > 0 && !due {
		op.Remaining--
		return
	}
	s.finish(op)
}

// finish ends an operation in flight: the resource reaches its final
// state (a DELETE removes it and everything below it). The caller holds
// s.mu.
func (s *Server) finish(op *operation) {
	if op.Status != "InProgress" {
		return
	}
	op.Ended = s.opts.Now().UTC()
	op.Status = "Succeeded"
	if op.Fail {
		op.Status = "Failed"
	}
	if op.Verb == verbPurge {
		s.purged(op) // keyvault.go
	}
	res := s.resources[op.Resource]
	if res == nil || res.Op != op.ID {
		s.persist()
		return
	}
	res.Op = ""
	switch {
	case op.Verb == "DELETE" && !op.Fail:
		s.remove(op.Resource)
	case op.Fail:
		res.State = stateFailed
		s.render(res)
	default:
		res.State = stateSucceeded
		s.render(res)
	}
	s.persist()
}

// operationStatus answers the operation URLs; false when the path is not
// one.
func (s *Server) operationStatus(w http.ResponseWriter, r *http.Request, segs []string) bool {
	var id string
	async := false
	n := len(segs)
	switch {
	case n == 8 && strings.EqualFold(segs[0], "subscriptions") && strings.EqualFold(segs[2], "providers") && strings.EqualFold(segs[4], "locations"):
		switch strings.ToLower(segs[6]) {
		case "operations":
			async = true
		case "asyncoperations", "operationresults":
		default:
			return false
		}
		id = segs[7]
	case n == 4 && strings.EqualFold(segs[0], "subscriptions") && strings.EqualFold(segs[2], "operationresults"):
		id = segs[3]
	default:
		return false
	}
	if r.Method != http.MethodGet {
		armError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "Operations are read with GET.", "")
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	op := s.ops[id]
	if op == nil {
		armError(w, http.StatusNotFound, "OperationNotFound", fmt.Sprintf("The operation '%s' was not found.", id), "")
		return true
	}
	s.advance(op)
	if async {
		body := map[string]any{"id": r.URL.Path, "name": op.ID, "status": op.Status, "startTime": op.Started.Format(time.RFC3339Nano)}
		if op.Status == "InProgress" {
			w.Header().Set("Retry-After", s.retryAfter())
		} else {
			body["endTime"] = op.Ended.Format(time.RFC3339Nano)
		}
		if op.Status == "Failed" {
			code, msg, _ := op.failure()
			body["error"] = map[string]any{"code": code, "message": msg}
		}
		if op.Status == "Succeeded" {
			s.operationShape(op, body)
		}
		writeJSON(w, http.StatusOK, body)
		return true
	}
	switch op.Status {
	case "InProgress":
		_, location := s.opURLs(r, op)
		if location == "" {
			location = baseURL(r) + r.URL.RequestURI()
		}
		w.Header().Set("Location", location)
		w.Header().Set("Retry-After", s.retryAfter())
		w.WriteHeader(http.StatusAccepted)
	case "Failed":
		// A terminal status: azcore keeps polling through 5xx.
		code, msg, status := op.failure()
		armError(w, status, code, msg, "")
	default:
		if op.Verb == "POST" {
			s.actionResult(w, op)
			return true
		}
		if res := s.resources[op.Resource]; res != nil && op.Verb != "DELETE" {
			writeRaw(w, http.StatusOK, res.rendered)
			return true
		}
		w.WriteHeader(http.StatusOK)
	}
	return true
}
