package reconciler

import (
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/armature-dev/armature/runtime/arm"
)

func TestMemory(t *testing.T) {
	m := newMemory()
	a, b := types.UID("a"), types.UID("b")
	if _, ok := m.lastWritten(a); ok || m.refusal(a) != nil || m.followed(a) != nil || m.takeForce(a) || m.spent(a, 1) != 0 {
		t.Fatal("a new memory remembers nothing")
	}
	if m.len() != 0 {
		t.Fatalf("reads made %d entries", m.len())
	}

	m.wrote(a, 42)
	if rv, ok := m.lastWritten(a); !ok || rv != 42 {
		t.Errorf("lastWritten = %d, %v", rv, ok)
	}
	m.accept(a, time.Now())
	if !m.acceptedSince(a, time.Minute) || m.acceptedSince(a, 0) || m.acceptedSince(b, time.Hour) {
		t.Error("acceptedSince")
	}

	if m.fail(a, arm.ClassRetry) != 1 || m.fail(a, arm.ClassRetry) != 2 || m.fail(a, arm.ClassWorldChange) != 1 {
		t.Error("a failure of another class starts a new run")
	}
	m.resetFailures(a)
	if m.fail(a, arm.ClassWorldChange) != 1 {
		t.Error("resetFailures ends the run")
	}

	m.spend(a, 3)
	m.spend(a, 3)
	if m.spent(a, 3) != 2 || m.spent(a, 4) != 0 {
		t.Errorf("spent = %d", m.spent(a, 3))
	}
	m.spend(a, 4)
	if m.spent(a, 4) != 1 || m.spent(a, 3) != 0 {
		t.Error("a new generation starts a new count")
	}
	m.resetBudget(a)
	if m.spent(a, 4) != 0 {
		t.Error("resetBudget")
	}

	r := &refusal{}
	m.refuse(a, r)
	if m.refusal(a) != r || m.refusal(b) != nil {
		t.Error("refusal is per object")
	}
	m.refuse(a, nil)
	if m.refusal(a) != nil {
		t.Error("refuse(nil) clears")
	}

	op := &operation{Verb: "PUT"}
	m.follow(a, op)
	if m.followed(a) != op {
		t.Error("followed")
	}
	m.markForce(a)
	if !m.takeForce(a) || m.takeForce(a) {
		t.Error("takeForce reports once")
	}

	m.wrote(b, 7)
	m.forget(a)
	if _, ok := m.lastWritten(a); ok || m.followed(a) != nil || m.len() != 1 {
		t.Error("forget drops everything of the object, and only of it")
	}
	if !m.isGone(a) || m.isGone(b) {
		t.Error("isGone: the forgotten object only")
	}
	m.gone[a] = time.Now().Add(-2 * goneFor) // long ago
	m.forget(b)
	if m.isGone(a) || !m.isGone(b) || len(m.goneOrder) != 1 {
		t.Errorf("gone is kept for goneFor only: gone %v, order %v", m.gone, m.goneOrder)
	}
}

// TestMemoryConcurrent: one lock; run with -race.
func TestMemoryConcurrent(t *testing.T) {
	m := newMemory()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			uid := types.UID(rune('a' + i%3))
			for j := range 200 {
				m.wrote(uid, uint64(j+1))
				m.fail(uid, arm.ClassRetry)
				m.spend(uid, 1)
				m.markForce(uid)
				m.takeForce(uid)
				if j%50 == 0 {
					m.forget(uid)
				}
			}
		}()
	}
	wg.Wait()
	if m.len() > 3 {
		t.Errorf("%d entries for 3 objects", m.len())
	}
}
