package arm

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestBudgetPriority: with the bucket empty, a high-priority request that
// arrives after a low-priority one still gets the next token first.
func TestBudgetPriority(t *testing.T) {
	b := NewBudget(map[string]Rate{"reads": {Burst: 1, PerSecond: 5}})
	ctx := context.Background()
	if err := b.take(ctx, "s", "reads", PriorityHigh); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	for _, w := range []struct {
		name string
		p    Priority
		at   time.Duration
	}{{"low", PriorityLow, 0}, {"high", PriorityHigh, 30 * time.Millisecond}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(w.at)
			if err := b.take(ctx, "s", "reads", w.p); err != nil {
				t.Error(err)
			}
			mu.Lock()
			order = append(order, w.name)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(order) != 2 || order[0] != "high" {
		t.Errorf("tokens went to %v, want high first", order)
	}
}

// TestBudgetFollowsRemaining: ARM's remaining count lowers the bucket.
func TestBudgetFollowsRemaining(t *testing.T) {
	b := NewBudget(nil)
	b.mu.Lock()
	bk := b.bucket("s", "writes")
	b.mu.Unlock()
	resp := &http.Response{StatusCode: 200, Header: http.Header{"X-Ms-Ratelimit-Remaining-Subscription-Writes": {"3"}}}
	b.answered("s", "writes", resp)
	if bk.tokens != 3 {
		t.Errorf("tokens %v after ARM said 3 remain", bk.tokens)
	}
	resp = &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"2"}}}
	b.answered("s", "writes", resp)
	if bk.tokens != 0 || time.Until(bk.pausedUntil) < time.Second {
		t.Errorf("after a 429: tokens %v, paused until %s", bk.tokens, bk.pausedUntil)
	}
}
