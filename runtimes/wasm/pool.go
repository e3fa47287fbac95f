package wasm

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/busy"
)

// pool is a provider's bounded set of instances, without a lock on the
// call path: idle instances sit in fixed slots (one cache line each) taken
// and returned by compare-and-swap, and the bound on busy instances is a
// busy.Bound (an atomic counter). Only a call that finds the pool full
// blocks. (A mutex, an idle slice and a semaphore channel cost six
// lock/unlock pairs a call and bounced between cores under parallel load.)
type pool[T any] struct {
	*busy.Bound
	slots []poolSlot[T]
	// key is the config key that set the bound (runtimes.wasm.pool_size,
	// or the provider's own runtimes.wasm.providers.<id>.pool_size), which
	// a call that waited for a full pool until its deadline names.
	key string
}

type poolSlot[T any] struct {
	p atomic.Pointer[T]
	_ [56]byte // a slot per cache line: two cores do not share one
}

func newPool[T any](size int, key string) *pool[T] {
	return &pool[T]{Bound: busy.New(size), slots: make([]poolSlot[T], size), key: key}
}

// acquire takes a unit of the bound, waiting while all are busy until the
// call's deadline or cancellation. A call that comes back into the same
// provider from one of its own host calls (nest is in ctx) may not wait
// for the bound alone — its caller holds an instance and waits for it — so
// it runs as an overflow instance outside the bound, one of at most
// max(pool_size, busy.MinExtra) (overflow true: the caller gives it back
// with ReleaseUnit(true)).
//
// The first such call of one host call (busy.Chain) runs free of both
// bounds (free true: no unit to give back), so a guest recursing through
// call_tool is bounded by limits.max_call_depth alone.
func (q *pool[T]) acquire(ctx context.Context, call *abi.ToolCall, nest any, providerID string) (free, overflow bool, err error) {
	v := ctx.Value(nest)
	chain, _ := v.(*busy.Chain)
	return q.AcquireIn(ctx, call.Deadline, call.Depth > 0 && v != nil, chain, providerID, call.Tool, q.key)
}

// take removes an idle instance, the one in the lowest slot (the most
// recently used ones gather there, so higher slots go idle and get
// trimmed), or returns nil.
func (q *pool[T]) take() *T {
	for i := range q.slots {
		s := &q.slots[i].p
		if x := s.Load(); x != nil && s.CompareAndSwap(x, nil) {
			return x
		}
	}
	return nil
}

// give puts x in a free slot; false when every slot is taken (the caller
// then closes x).
func (q *pool[T]) give(x *T) bool {
	for i := range q.slots {
		if q.slots[i].p.CompareAndSwap(nil, x) {
			return true
		}
	}
	return false
}

// remove takes x out of its slot if it is still idle there.
func (q *pool[T]) remove(x *T) bool {
	for i := range q.slots {
		if q.slots[i].p.CompareAndSwap(x, nil) {
			return true
		}
	}
	return false
}

// idle lists the idle instances at this moment (they may be taken at once).
func (q *pool[T]) idle() []*T {
	var out []*T
	for i := range q.slots {
		if x := q.slots[i].p.Load(); x != nil {
			out = append(out, x)
		}
	}
	return out
}

// drain takes every idle instance out.
func (q *pool[T]) drain() []*T {
	var out []*T
	for i := range q.slots {
		if x := q.slots[i].p.Swap(nil); x != nil {
			out = append(out, x)
		}
	}
	return out
}

// idleMark is an instance's part of idle trimming: put marks it used (no
// clock read on the call path), and a trim pass that finds the mark stamps
// it idle from then.
type idleMark struct {
	used      atomic.Bool  // served a call since the last trim pass
	idleSince atomic.Int64 // UnixNano
}

func (m *idleMark) marks() *idleMark { return m }

// trimIdle closes (with closeInst) the instances of q idle for at least
// idleTimeout, keeping minIdle: the trim pass of both engines.
func trimIdle[T any, PT interface {
	*T
	marks() *idleMark
}](q *pool[T], now time.Time, minIdle int, idleTimeout time.Duration, closeInst func(*T)) {
	idle := q.idle()
	n := len(idle)
	for _, inst := range idle {
		m := PT(inst).marks()
		if m.used.Swap(false) {
			m.idleSince.Store(now.UnixNano())
			continue
		}
		if n > minIdle && now.UnixNano()-m.idleSince.Load() >= int64(idleTimeout) && q.remove(inst) {
			n--
			closeInst(inst)
		}
	}
}

// stats counts the idle instances and the units of the bound in use (an
// overflow instance of a nested call is not counted).
func (q *pool[T]) stats() (idle, busy int) {
	for i := range q.slots {
		if q.slots[i].p.Load() != nil {
			idle++
		}
	}
	return idle, q.Busy()
}
