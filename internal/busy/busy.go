// Package busy bounds how many instances of one provider serve calls at
// once, without a lock on the call path: the bound is an atomic counter,
// and only a call that finds it reached takes a lock and waits, in a
// queue: a unit a call gives back goes to the call that has waited
// longest, not to whichever call asks next.
// The WASM core runtime and both component engines use it.
package busy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// Bound is a provider's bound on busy instances. The zero value is not
// usable: make one with New.
type Bound struct {
	size    int32
	busy    atomic.Int32 // units in use (at most size)
	waiters atomic.Int32 // calls in the queue, or about to look at busy before joining it

	mu    sync.Mutex
	queue []chan struct{} // calls waiting, longest first; closed when handed a unit
}

// New returns a bound of size (at least 1) units.
func New(size int) *Bound {
	size = max(size, 1)
	return &Bound{size: int32(size)}
}

// Size is the bound.
func (b *Bound) Size() int { return int(b.size) }

// Busy is the number of units in use at this moment.
func (b *Bound) Busy() int { return int(b.busy.Load()) }

// TryAcquire takes one unit if one is free and no call waits for one (a
// call that waits is served first: a unit it was woken for must not be
// taken by a call that came later).
func (b *Bound) TryAcquire() bool {
	for {
		if b.waiters.Load() > 0 {
			return false
		}
		n := b.busy.Load()
		if n >= b.size {
			return false
		}
		if b.busy.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// take takes a unit if one is free, regardless of the queue.
func (b *Bound) take() bool {
	for {
		n := b.busy.Load()
		if n >= b.size {
			return false
		}
		if b.busy.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release returns a unit; when calls wait, the one that has waited
// longest gets it.
func (b *Bound) Release() {
	b.busy.Add(-1)
	// busy is lowered before waiters is read, and a call joining the
	// queue raises waiters before it reads busy (both sequentially
	// consistent): either this sees the call, or the call sees the unit.
	if b.waiters.Load() > 0 {
		b.mu.Lock()
		b.handOut()
		b.mu.Unlock()
	}
}

// handOut gives free units to the calls at the head of the queue. b.mu
// is held.
func (b *Bound) handOut() {
	for len(b.queue) > 0 && b.take() {
		ch := b.queue[0]
		b.queue[0] = nil
		b.queue = b.queue[1:]
		b.waiters.Add(-1)
		close(ch)
	}
}

// Acquire takes a unit, waiting while all are busy until deadline (zero:
// none) or ctx's end; the calls waiting are served in the order they
// came. A call that comes back into the same provider from one of its own
// host calls (reentrant) may not wait — its caller holds a unit and waits
// for it — so it runs outside the bound: overflow true, and the caller
// must not Release. A wait that reaches the deadline is a Timeout naming
// provider, tool and setting, the config key that sets the bound.
func (b *Bound) Acquire(ctx context.Context, deadline time.Time, reentrant bool, provider, tool, setting string) (overflow bool, err error) {
	if b.TryAcquire() {
		return false, nil
	}
	if reentrant {
		return true, nil
	}
	b.mu.Lock()
	b.waiters.Add(1)
	if len(b.queue) == 0 && b.take() {
		b.waiters.Add(-1)
		b.mu.Unlock()
		return false, nil
	}
	ch := make(chan struct{})
	b.queue = append(b.queue, ch)
	b.mu.Unlock()

	var wait <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		wait = t.C
	}
	select {
	case <-ch:
		return false, nil
	case <-wait:
		err = abi.Errorf(abi.Timeout, "all %d instances of %s were busy until the deadline of %s (%s)", b.size, provider, tool, setting)
	case <-ctx.Done():
		// Say which call and that it waited for the pool: the
		// context's own text ("context canceled") names neither.
		te := abi.AsToolError(ctx.Err(), abi.Cancelled)
		what := "was cancelled"
		if te.Code == abi.Timeout {
			what = "reached its deadline"
		}
		err = abi.Errorf(te.Code, "the call of %s %s while all %d instances of %s were busy (%s): %s", tool, what, b.size, provider, setting, te.Message)
	}
	// Leave the queue; a unit handed over meanwhile goes to the next.
	b.mu.Lock()
	handed := true
	for i, c := range b.queue {
		if c == ch {
			b.queue = append(b.queue[:i], b.queue[i+1:]...)
			b.waiters.Add(-1)
			handed = false
			break
		}
	}
	b.mu.Unlock()
	if handed {
		b.Release()
	}
	return false, err
}
