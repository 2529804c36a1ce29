package fakearm

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// registrations are the (subscription, namespace) pairs that are not
// registered. Every other pair is: the emulator starts with every provider
// registered, as a subscription the portal has used.
type registrations struct {
	mu    sync.Mutex
	unreg map[string]bool // lower(subscription + "/" + namespace)
}

func regKey(sub, ns string) string { return strings.ToLower(sub + "/" + ns) }

// Unregister makes a subscription not registered with a resource provider
// namespace: its calls to that namespace answer 409
// MissingSubscriptionRegistration until the provider is registered.
func (s *Server) Unregister(subscription, namespace string) {
	s.regs.mu.Lock()
	defer s.regs.mu.Unlock()
	if s.regs.unreg == nil {
		s.regs.unreg = map[string]bool{}
	}
	s.regs.unreg[regKey(subscription, namespace)] = true
}

// Registered reports whether a subscription is registered with a namespace.
func (s *Server) Registered(subscription, namespace string) bool {
	s.regs.mu.Lock()
	defer s.regs.mu.Unlock()
	return !s.regs.unreg[regKey(subscription, namespace)]
}

// providers serves the provider registration calls of Microsoft.Resources
// and refuses calls to a namespace the subscription is not registered
// with, as ARM does:
//
//	GET  /subscriptions/{id}/providers/{namespace}
//	POST /subscriptions/{id}/providers/{namespace}/register
//	POST /subscriptions/{id}/providers/{namespace}/unregister
//
// Registration completes at once (ARM says Registering for a while). true
// means it answered.
func (s *Server) providers(w http.ResponseWriter, r *http.Request, segs []string) bool {
	if len(segs) < 4 || !strings.EqualFold(segs[0], "subscriptions") {
		return false
	}
	sub := segs[1]
	if strings.EqualFold(segs[2], "providers") && (len(segs) == 4 || len(segs) == 5) {
		ns := segs[3]
		switch {
		case len(segs) == 4 && r.Method == http.MethodGet:
		case len(segs) == 5 && r.Method == http.MethodPost && strings.EqualFold(segs[4], "register"):
			s.regs.mu.Lock()
			delete(s.regs.unreg, regKey(sub, ns))
			s.regs.mu.Unlock()
		case len(segs) == 5 && r.Method == http.MethodPost && strings.EqualFold(segs[4], "unregister"):
			s.Unregister(sub, ns)
		default:
			return false
		}
		state := "Registered"
		if !s.Registered(sub, ns) {
			state = "NotRegistered"
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": "/subscriptions/" + sub + "/providers/" + ns, "namespace": ns, "registrationState": state, "registrationPolicy": "RegistrationRequired"})
		return true
	}
	ns := ""
	for i := 2; i+1 < len(segs); i++ {
		if strings.EqualFold(segs[i], "providers") {
			ns = segs[i+1]
		}
	}
	if ns == "" || s.Registered(sub, ns) {
		return false
	}
	armError(w, http.StatusConflict, "MissingSubscriptionRegistration", fmt.Sprintf("The subscription is not registered to use namespace '%s'. See https://aka.ms/rps-not-found for how to register subscriptions.", ns), ns)
	return true
}
