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
	s.fmu.Lock()
	var hit *CodeFault
	for i := range s.faults.Codes {
		f := &s.faults.Codes[i]
		if f.Method != "" && !strings.EqualFold(f.Method, r.Method) || !strings.Contains(r.URL.Path, f.PathContains) {
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
	s.fmu.Unlock()
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
