package arm

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Rate is a token bucket: Burst requests at once, refilled at PerSecond.
type Rate struct {
	Burst     float64
	PerSecond float64
}

// ARM's published throttling limits per subscription and principal, a
// token bucket per operation type (learn.microsoft.com, "Understand how
// Azure Resource Manager throttles requests", regional throttling and
// token bucket algorithm, 2024): reads 250 refilled at 25 per second,
// writes and deletes 200 refilled at 10 per second.
var (
	DefaultReads   = Rate{Burst: 250, PerSecond: 25}
	DefaultWrites  = Rate{Burst: 200, PerSecond: 10}
	DefaultDeletes = Rate{Burst: 200, PerSecond: 10}
)

// Priority orders requests waiting for the same budget.
type Priority int

const (
	// PriorityHigh is user-driven work: a spec change, a delete, an
	// Action. The default.
	PriorityHigh Priority = iota
	// PriorityLow is background work: resyncs and the drift observer's
	// lists. It waits while high-priority requests wait.
	PriorityLow
)

type priorityKey struct{}

// WithPriority marks the requests sent with ctx.
func WithPriority(ctx context.Context, p Priority) context.Context {
	return context.WithValue(ctx, priorityKey{}, p)
}

func priorityOf(ctx context.Context) Priority {
	p, _ := ctx.Value(priorityKey{}).(Priority)
	return p
}

// Budget paces one client's requests to ARM so that it stays inside ARM's
// limits instead of learning them from 429s: a token bucket per
// subscription and operation type (reads, writes, deletes), shared by
// everything that uses the client. A bucket also follows ARM's own count:
// when the x-ms-ratelimit-remaining-subscription-* header says fewer
// tokens remain (other clients share the subscription), the bucket drops
// to it. A 429 pauses the bucket for its Retry-After: nothing of that type
// is sent to that subscription until then. Low-priority requests wait
// while high-priority ones do.
type Budget struct {
	rates map[string]Rate
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	op          string
	rate        Rate
	tokens      float64
	last        time.Time
	pausedUntil time.Time
	highWaiting int
}

// NewBudget returns a budget with the given rates per operation type
// ("reads", "writes", "deletes"); a missing type gets ARM's default.
func NewBudget(rates map[string]Rate) *Budget {
	b := &Budget{rates: map[string]Rate{"reads": DefaultReads, "writes": DefaultWrites, "deletes": DefaultDeletes}, now: time.Now, buckets: map[string]*bucket{}}
	for k, v := range rates {
		b.rates[k] = v
	}
	return b
}

// opOf is the operation type of a method, as ARM's headers name it.
func opOf(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "reads"
	case http.MethodDelete:
		return "deletes"
	}
	return "writes"
}

func subscriptionOf(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) > 1 && strings.EqualFold(segs[0], "subscriptions") {
		return strings.ToLower(segs[1])
	}
	return "tenant"
}

func (b *Budget) bucket(sub, op string) *bucket {
	k := sub + "/" + op
	bk := b.buckets[k]
	if bk == nil {
		r := b.rates[op]
		bk = &bucket{op: op, rate: r, tokens: r.Burst, last: b.now()}
		b.buckets[k] = bk
	}
	return bk
}

// refill adds the tokens earned since the last call.
func (bk *bucket) refill(now time.Time) {
	if now.After(bk.last) {
		bk.tokens += now.Sub(bk.last).Seconds() * bk.rate.PerSecond
		if bk.tokens > bk.rate.Burst {
			bk.tokens = bk.rate.Burst
		}
		bk.last = now
	}
}

// take waits for a token of the bucket, or for ctx to end.
func (b *Budget) take(ctx context.Context, sub, op string, p Priority) error {
	waited := time.Duration(0)
	counted := false
	b.mu.Lock()
	bk := b.bucket(sub, op)
	if p == PriorityHigh {
		bk.highWaiting++
		defer func() { b.mu.Lock(); bk.highWaiting--; b.mu.Unlock() }()
	}
	for {
		now := b.now()
		bk.refill(now)
		var wait time.Duration
		switch {
		case now.Before(bk.pausedUntil):
			wait = bk.pausedUntil.Sub(now)
		case p == PriorityLow && bk.highWaiting > 0:
			wait = 50 * time.Millisecond
		case bk.tokens >= 1:
			bk.tokens--
			budgetTokens.WithLabelValues(sub, op).Set(bk.tokens)
			b.mu.Unlock()
			if counted {
				budgetWaitSeconds.WithLabelValues(op, p.String()).Add(waited.Seconds())
			}
			return nil
		default:
			wait = time.Duration((1 - bk.tokens) / bk.rate.PerSecond * float64(time.Second))
		}
		b.mu.Unlock()
		if !counted {
			budgetWaits.WithLabelValues(op, p.String()).Inc()
			counted = true
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		waited += wait
		b.mu.Lock()
	}
}

// answered adjusts a bucket to ARM's answer: the remaining count it
// reports, and a pause of Retry-After on 429.
func (b *Budget) answered(sub, op string, resp *http.Response) {
	b.mu.Lock()
	defer b.mu.Unlock()
	bk := b.bucket(sub, op)
	if v := resp.Header.Get("x-ms-ratelimit-remaining-subscription-" + op); v != "" {
		if n, err := strconv.Atoi(v); err == nil && float64(n) < bk.tokens {
			bk.tokens = float64(n)
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		throttled.WithLabelValues(op).Inc()
		pause := retryAfter(resp)
		if pause <= 0 {
			pause = 5 * time.Second
		}
		if until := b.now().Add(pause); until.After(bk.pausedUntil) {
			bk.pausedUntil = until
		}
		bk.tokens = 0
	}
	budgetTokens.WithLabelValues(sub, op).Set(bk.tokens)
}

// Do implements policy.Policy: every attempt, retries included, takes a
// token first.
func (b *Budget) Do(req *policy.Request) (*http.Response, error) {
	r := req.Raw()
	sub, op := subscriptionOf(r.URL.Path), opOf(r.Method)
	if err := b.take(r.Context(), sub, op, priorityOf(r.Context())); err != nil {
		return nil, err
	}
	resp, err := req.Next()
	if resp != nil {
		b.answered(sub, op, resp)
	}
	return resp, err
}

func (p Priority) String() string {
	if p == PriorityLow {
		return "low"
	}
	return "high"
}
