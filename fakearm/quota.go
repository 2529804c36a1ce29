package fakearm

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// budget is one subscription's rate-limit budget: a token bucket per
// operation type, as ARM's throttling since 2024 (each bucket holds its
// Options budget and refills at its Options refill rate, continuously).
type budget struct {
	last                   time.Time
	reads, writes, deletes float64
}

// spend takes one request from the subscription's budget and sets the
// x-ms-ratelimit-remaining-subscription-* header; false means it answered
// 429 (with the Retry-After until a token is back) because the bucket is
// empty.
func (s *Server) spend(w http.ResponseWriter, r *http.Request, segs []string) bool {
	sub := "tenant"
	if len(segs) > 1 && strings.EqualFold(segs[0], "subscriptions") {
		sub = strings.ToLower(segs[1])
	}
	now := s.opts.Now()
	s.qmu.Lock()
	b := s.quota[sub]
	if b == nil {
		b = &budget{last: now, reads: float64(s.opts.ReadBudget), writes: float64(s.opts.WriteBudget), deletes: float64(s.opts.DeleteBudget)}
		s.quota[sub] = b
	}
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.reads = math.Min(float64(s.opts.ReadBudget), b.reads+dt*s.opts.ReadRefill)
		b.writes = math.Min(float64(s.opts.WriteBudget), b.writes+dt*s.opts.WriteRefill)
		b.deletes = math.Min(float64(s.opts.DeleteBudget), b.deletes+dt*s.opts.DeleteRefill)
		b.last = now
	}
	var left *float64
	var header string
	var refill float64
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		left, header, refill = &b.reads, "x-ms-ratelimit-remaining-subscription-reads", s.opts.ReadRefill
	case http.MethodDelete:
		left, header, refill = &b.deletes, "x-ms-ratelimit-remaining-subscription-deletes", s.opts.DeleteRefill
	default:
		left, header, refill = &b.writes, "x-ms-ratelimit-remaining-subscription-writes", s.opts.WriteRefill
	}
	ok := *left >= 1
	if ok {
		*left--
	}
	remaining := *left
	s.qmu.Unlock()
	if !ok {
		wait := int(math.Ceil((1 - remaining) / refill))
		if wait < 1 {
			wait = 1
		}
		w.Header().Set(header, "0")
		w.Header().Set("Retry-After", strconv.Itoa(wait))
		armError(w, http.StatusTooManyRequests, "SubscriptionRequestsThrottled", "Number of requests for subscription '"+sub+"' exceeded the limit. Please try again after the Retry-After interval.", "")
		return false
	}
	w.Header().Set(header, strconv.Itoa(int(remaining)))
	return true
}

// ARMLimits sets the budgets to ARM's published per-subscription limits
// (learn.microsoft.com, "Understand how Azure Resource Manager throttles
// requests", token bucket algorithm): reads 250 refilled at 25 per second,
// writes and deletes 200 refilled at 10 per second.
func (o *Options) ARMLimits() {
	o.ReadBudget, o.ReadRefill = 250, 25
	o.WriteBudget, o.WriteRefill = 200, 10
	o.DeleteBudget, o.DeleteRefill = 200, 10
}
