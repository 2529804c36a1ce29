package arm_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/arm"
)

// TestBudgetKeepsInsideARM: an emulator whose write bucket holds 4 and
// refills 2 per second. A client whose budget knows that sends 10 writes
// without one 429; a client that assumes more is throttled (so the first
// half can fail).
func TestBudgetKeepsInsideARM(t *testing.T) {
	for name, tc := range map[string]struct {
		budget   *arm.Budget
		want429s bool
	}{
		"Matching": {budget: arm.NewBudget(map[string]arm.Rate{"writes": {Burst: 4, PerSecond: 2}})},
		"TooEager": {budget: arm.NewBudget(map[string]arm.Rate{"writes": {Burst: 100, PerSecond: 100}}), want429s: true},
	} {
		t.Run(name, func(t *testing.T) {
			fa, c := setup(t, fakearm.Options{WriteBudget: 4, QuotaWindow: 2 * time.Second}, tc.budget)
			ctx := context.Background()
			for i := 0; i < 10; i++ {
				if _, err := c.Put(ctx, fmt.Sprintf("/subscriptions/00000000-0000-0000-0000-0000000000c1/resourceGroups/budget%d", i), rgV, []byte(`{"location":"westeurope"}`)); err != nil {
					t.Fatalf("write %d: %v", i, err)
				}
			}
			if got := fa.Count("PUT 429"); (got > 0) != tc.want429s {
				t.Errorf("%d answers 429, want some: %v", got, tc.want429s)
			}
		})
	}
}

// TestBudgetPausesOn429: a 429 pauses the subscription's writes for its
// Retry-After: writes started by other goroutines after the 429 arrived
// are not sent before the pause ends.
func TestBudgetPausesOn429(t *testing.T) {
	fa, c := setup(t, fakearm.Options{Faults: fakearm.Faults{ThrottleNext: 1, ThrottleRetryAfterSeconds: 1, Methods: []string{http.MethodPut}}}, nil)
	ctx := context.Background()
	put := func(i int) {
		if _, err := c.Put(ctx, fmt.Sprintf("/subscriptions/00000000-0000-0000-0000-0000000000c1/resourceGroups/pause%d", i), rgV, []byte(`{"location":"westeurope"}`)); err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); put(0) }()
	var throttledAt time.Time
	for deadline := time.Now().Add(5 * time.Second); throttledAt.IsZero() && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		for _, e := range fa.Journal() {
			if e.Status == http.StatusTooManyRequests {
				throttledAt = e.Time
			}
		}
	}
	if throttledAt.IsZero() {
		t.Fatal("no 429")
	}
	time.Sleep(20 * time.Millisecond) // the client has the answer
	for i := 1; i < 4; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); put(i) }()
	}
	wg.Wait()
	for _, e := range fa.Journal() {
		if e.Method == http.MethodPut && e.Time.After(throttledAt) && e.Time.Sub(throttledAt) < 900*time.Millisecond {
			t.Errorf("PUT %s sent %s after the 429, inside its 1s Retry-After", e.Path, e.Time.Sub(throttledAt))
		}
	}
	if fa.Count("PUT 201") != 4 {
		t.Errorf("want 4 creates: %v", fa.Counts())
	}
}
