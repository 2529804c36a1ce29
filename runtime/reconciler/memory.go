package reconciler

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/armature-dev/armature/runtime/arm"
)

// memory is what this process remembers of each object between
// reconciles, by UID: its last write to the object, ARM's last accepted
// write, the write ARM refused, the run of retried failures, the writes of
// the current generation, the create operation followed from memory, and
// whether the drift observer asked for a GET.
//
// One lock guards every entry; nothing here is held across a call to ARM
// or the apiserver. The one expiry rule: an entry lives until its object
// is gone (forget, when the finalizer is off a deleted object; that it is
// gone is kept for goneFor, against stale cached copies); the parts
// that describe a run (failures, the write budget) are reset when the
// object settles. The reconcilers of a kind's versions share one memory.
type memory struct {
	mu sync.Mutex
	m  map[types.UID]*remembered
	// gone are the objects whose finalizer this process removed, and
	// when (forget).
	gone      map[types.UID]time.Time
	goneOrder []types.UID // gone's keys, oldest first
}

// remembered is what memory holds of one object.
type remembered struct {
	// written is the resourceVersion of this process's last write to the
	// object (0: none): a cached copy older than that is stale.
	written uint64
	// accepted is when ARM last accepted a write of the object: a 404
	// soon after is read-after-write lag.
	accepted time.Time
	// refused is the write ARM refused with an object-change error: the
	// same write of the same generation is not sent again.
	refused *refusal
	// failures is the run of consecutive retried failures of one class.
	failures failure
	// budget counts the writes of one generation that did not settle it.
	budget writeCount
	// pending is the create operation this process follows from memory.
	pending *operation
	// force is set when the drift observer asked for a GET.
	force bool
	// refresh is the last refresh annotation acted on (AnnotationRefresh).
	refresh string
	// corrected is set when the last-applied record was dropped to
	// correct drift: the resource exists, and the next PUT updates it.
	corrected bool
	// outputs is the digest of the outputs last written for the object
	// (spec.operatorSpec): the same values are not written again.
	outputs [32]byte
}

type failure struct {
	class arm.Class
	n     int
}

type writeCount struct {
	generation int64
	n          int
}

func newMemory() *memory { return &memory{m: map[types.UID]*remembered{}} }

// with runs f on the object's entry, made if missing, under the lock.
func (m *memory) with(uid types.UID, f func(e *remembered)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.m[uid]
	if e == nil {
		e = &remembered{}
		m.m[uid] = e
	}
	f(e)
}

// read runs f on the object's entry (nil when missing) under the lock.
func (m *memory) read(uid types.UID, f func(e *remembered)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f(m.m[uid])
}

// goneFor is how long memory keeps the UID of an object whose finalizer
// this process removed: a cached copy that still has the finalizer is
// stale, and acting on it would send a second DELETE.
const goneFor = time.Minute

// forget drops everything remembered of an object that is gone, keeping
// only that it is gone (for goneFor).
func (m *memory) forget(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, uid)
	now := time.Now()
	for len(m.goneOrder) > 0 && now.Sub(m.gone[m.goneOrder[0]]) > goneFor {
		delete(m.gone, m.goneOrder[0])
		m.goneOrder = m.goneOrder[1:]
	}
	if m.gone == nil {
		m.gone = map[types.UID]time.Time{}
	}
	if _, seen := m.gone[uid]; !seen {
		m.goneOrder = append(m.goneOrder, uid)
	}
	m.gone[uid] = now
}

// isGone reports whether this process removed the finalizer of the
// object (within goneFor): it is gone, whatever a cached copy says.
func (m *memory) isGone(uid types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.gone[uid]
	return ok
}

// len is the number of objects remembered.
func (m *memory) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}

// wrote records the resourceVersion of this process's write to the object.
func (m *memory) wrote(uid types.UID, resourceVersion uint64) {
	m.with(uid, func(e *remembered) { e.written = resourceVersion })
}

// lastWritten returns the resourceVersion of this process's last write to
// the object; ok is false when it wrote none.
func (m *memory) lastWritten(uid types.UID) (rv uint64, ok bool) {
	m.read(uid, func(e *remembered) {
		if e != nil && e.written != 0 {
			rv, ok = e.written, true
		}
	})
	return rv, ok
}

// accept records that ARM accepted a write of the object at t.
func (m *memory) accept(uid types.UID, t time.Time) {
	m.with(uid, func(e *remembered) { e.accepted = t })
}

// acceptedSince reports whether ARM accepted a write of the object less
// than d ago.
func (m *memory) acceptedSince(uid types.UID, d time.Duration) (ok bool) {
	m.read(uid, func(e *remembered) { ok = e != nil && !e.accepted.IsZero() && time.Since(e.accepted) < d })
	return ok
}

// refuse records the write ARM refused; nil clears it.
func (m *memory) refuse(uid types.UID, r *refusal) {
	m.with(uid, func(e *remembered) { e.refused = r })
}

// refusal returns the write ARM refused, or nil.
func (m *memory) refusal(uid types.UID) (r *refusal) {
	m.read(uid, func(e *remembered) {
		if e != nil {
			r = e.refused
		}
	})
	return r
}

// fail records one more retried failure of class and returns how many in
// a row (a failure of another class starts a new run).
func (m *memory) fail(uid types.UID, class arm.Class) (n int) {
	m.with(uid, func(e *remembered) {
		n = 1
		if e.failures.class == class {
			n = e.failures.n + 1
		}
		e.failures = failure{class: class, n: n}
	})
	return n
}

// resetFailures ends the object's run of failures.
func (m *memory) resetFailures(uid types.UID) {
	m.read(uid, func(e *remembered) {
		if e != nil {
			e.failures = failure{}
		}
	})
}

// spent returns how many writes generation gen of the object has made.
func (m *memory) spent(uid types.UID, gen int64) (n int) {
	m.read(uid, func(e *remembered) {
		if e != nil && e.budget.generation == gen {
			n = e.budget.n
		}
	})
	return n
}

// spend counts one write of generation gen.
func (m *memory) spend(uid types.UID, gen int64) {
	m.with(uid, func(e *remembered) {
		if e.budget.generation != gen {
			e.budget = writeCount{generation: gen}
		}
		e.budget.n++
	})
}

// resetBudget forgets the writes counted for the object.
func (m *memory) resetBudget(uid types.UID) {
	m.read(uid, func(e *remembered) {
		if e != nil {
			e.budget = writeCount{}
		}
	})
}

// follow keeps the create operation this process follows; nil drops it.
func (m *memory) follow(uid types.UID, op *operation) {
	m.with(uid, func(e *remembered) { e.pending = op })
}

// followed returns the create operation kept for the object, or nil.
func (m *memory) followed(uid types.UID) (op *operation) {
	m.read(uid, func(e *remembered) {
		if e != nil {
			op = e.pending
		}
	})
	return op
}

// markForce records that the drift observer asked for a GET of the object.
func (m *memory) markForce(uid types.UID) {
	m.with(uid, func(e *remembered) { e.force = true })
}

// newRefresh reports whether v is a refresh annotation not acted on yet,
// and records it. After a restart, the one on an object is acted on once.
func (m *memory) newRefresh(uid types.UID, v string) (ok bool) {
	m.with(uid, func(e *remembered) {
		ok = e.refresh != v
		e.refresh = v
	})
	return ok
}

// markCorrected records that the object's record was dropped to correct
// drift; takeCorrected reports it, and clears it.
func (m *memory) markCorrected(uid types.UID) {
	m.with(uid, func(e *remembered) { e.corrected = true })
}

func (m *memory) takeCorrected(uid types.UID) (ok bool) {
	m.read(uid, func(e *remembered) {
		if e != nil {
			ok, e.corrected = e.corrected, false
		}
	})
	return ok
}

// takeForce reports, and clears, the drift observer's request.
func (m *memory) takeForce(uid types.UID) (ok bool) {
	m.read(uid, func(e *remembered) {
		if e != nil {
			ok, e.force = e.force, false
		}
	})
	return ok
}

// outputsWritten reports whether the outputs with this digest were the
// last ones written for the object.
func (m *memory) outputsWritten(uid types.UID, digest [32]byte) (ok bool) {
	m.read(uid, func(e *remembered) { ok = e != nil && e.outputs == digest })
	return ok
}

// wroteOutputs records the digest of the outputs written.
func (m *memory) wroteOutputs(uid types.UID, digest [32]byte) {
	m.with(uid, func(e *remembered) { e.outputs = digest })
}
