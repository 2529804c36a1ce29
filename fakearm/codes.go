package fakearm

import (
	"net/http"
	"strconv"
	"strings"
)

// CodeFault answers matching requests with an ARM error of a given status
// and code, as ARM words them: the emulator can produce every row of the
// reconciler's error table (runtime/arm Rules). Rules are tried in order;
// the first that matches answers.
type CodeFault struct {
	// Method limits the rule to one HTTP method (all when empty).
	Method string `json:"method,omitempty"`
	// PathContains limits the rule to paths containing it (all when empty).
	PathContains string `json:"pathContains,omitempty"`
	// Status is the HTTP status. Defaults to 400.
	Status int `json:"status,omitempty"`
	// Code is ARM's error code, e.g. AuthorizationFailed. Required.
	Code string `json:"code"`
	// Message is ARM's message. Defaults to "<Code> (injected fault)."
	Message string `json:"message,omitempty"`
	// Target is the error's target, when set.
	Target string `json:"target,omitempty"`
	// Count answers the next Count matching requests; the rule is then
	// removed. With Count and Rate both 0, every matching request.
	Count int `json:"count,omitempty"`
	// Rate answers this share (0 to 1) of matching requests.
	Rate float64 `json:"rate,omitempty"`
	// RetryAfterSeconds sets Retry-After when positive.
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty"`
	// Operation makes the rule fail long-running operations instead of
	// answering requests: a matching request is answered as usual, and the
	// operation it starts ends Failed with this code and message (its
	// Azure-AsyncOperation status says {"status": "Failed", "error": …};
	// its Location answers Status, default 400, with the error). Count
	// and Rate count operations.
	Operation bool `json:"operation,omitempty"`
}

// AddCodeFault appends a rule to the injected faults.
func (s *Server) AddCodeFault(f CodeFault) {
	s.fmu.Lock()
	s.faults.Codes = append(s.faults.Codes, f)
	s.fmu.Unlock()
}

// injectCode answers with the first code fault that matches; true means
// the request was answered.
func (s *Server) injectCode(w http.ResponseWriter, r *http.Request) bool {
	hit := s.codeFault(r.Method, r.URL.Path, false)
	if hit == nil {
		return false
	}
	status, msg := hit.Status, hit.Message
	if status == 0 {
		status = http.StatusBadRequest
	}
	if msg == "" {
		msg = hit.Code + " (injected fault)."
	}
	if hit.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(hit.RetryAfterSeconds))
	}
	armError(w, status, hit.Code, msg, hit.Target)
	return true
}

// operationFault is the code fault that fails the operation a request
// (method, path) starts, or nil; it counts one use.
func (s *Server) operationFault(method, path string) *CodeFault {
	return s.codeFault(method, path, true)
}

// codeFault finds the first code fault of the kind (operation or not)
// that matches a request and counts one use of it.
func (s *Server) codeFault(method, path string, operation bool) *CodeFault {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	var hit *CodeFault
	for i := range s.faults.Codes {
		f := &s.faults.Codes[i]
		if f.Operation != operation || f.Method != "" && !strings.EqualFold(f.Method, method) || !strings.Contains(path, f.PathContains) {
			continue
		}
		if f.Rate > 0 && s.rng.Float64() >= f.Rate {
			continue
		}
		c := *f
		hit = &c
		if f.Count > 0 {
			if f.Count--; f.Count == 0 {
				s.faults.Codes = append(s.faults.Codes[:i:i], s.faults.Codes[i+1:]...)
			}
		}
		break
	}
	return hit
}
