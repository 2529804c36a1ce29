package fakearm

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// budget is one subscription's rate-limit budget in the current window.
type budget struct {
	start                  time.Time
	reads, writes, deletes int
}

// spend takes one request from the subscription's budget and sets the
// x-ms-ratelimit-remaining-subscription-* header; false means it answered
// 429 because the budget is spent.
func (s *Server) spend(w http.ResponseWriter, r *http.Request, segs []string) bool {
	sub := "tenant"
	if len(segs) > 1 && strings.EqualFold(segs[0], "subscriptions") {
		sub = strings.ToLower(segs[1])
	}
	now := s.opts.Now()
	s.qmu.Lock()
	b := s.quota[sub]
	if b == nil || now.Sub(b.start) >= s.opts.QuotaWindow {
		b = &budget{start: now, reads: s.opts.ReadBudget, writes: s.opts.WriteBudget, deletes: s.opts.DeleteBudget}
		s.quota[sub] = b
	}
	var left *int
	var header string
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		left, header = &b.reads, "x-ms-ratelimit-remaining-subscription-reads"
	case http.MethodDelete:
		left, header = &b.deletes, "x-ms-ratelimit-remaining-subscription-deletes"
	default:
		left, header = &b.writes, "x-ms-ratelimit-remaining-subscription-writes"
	}
	*left--
	remaining := *left
	reset := b.start.Add(s.opts.QuotaWindow).Sub(now)
	s.qmu.Unlock()
	if remaining < 0 {
		w.Header().Set(header, "0")
		w.Header().Set("Retry-After", strconv.Itoa(int((reset+time.Second-1)/time.Second)))
		armError(w, http.StatusTooManyRequests, "SubscriptionRequestsThrottled", "Number of requests for subscription '"+sub+"' exceeded the limit of this window. Please try again after the Retry-After interval.", "")
		return false
	}
	w.Header().Set(header, strconv.Itoa(remaining))
	return true
}
