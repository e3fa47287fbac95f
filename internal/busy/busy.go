// Package busy bounds how many instances of one provider serve calls at
// once, without a lock on the call path: the bound is an atomic counter,
// and only a call that finds it reached blocks, on a channel a releasing
// call signals. The WASM core runtime and both component engines use it.
package busy

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// Bound is a provider's bound on busy instances. The zero value is not
// usable: make one with New.
type Bound struct {
	size    int32
	busy    atomic.Int32 // units in use (at most size)
	waiters atomic.Int32 // calls blocked in Acquire
	wake    chan struct{}
}

// New returns a bound of size (at least 1) units.
func New(size int) *Bound {
	size = max(size, 1)
	return &Bound{size: int32(size), wake: make(chan struct{}, size)}
}

// Size is the bound.
func (b *Bound) Size() int { return int(b.size) }

// Busy is the number of units in use at this moment.
func (b *Bound) Busy() int { return int(b.busy.Load()) }

// TryAcquire takes one unit if one is free.
func (b *Bound) TryAcquire() bool {
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

// Release returns a unit and wakes a blocked Acquire.
func (b *Bound) Release() {
	b.busy.Add(-1)
	if b.waiters.Load() > 0 {
		select {
		case b.wake <- struct{}{}:
		default: // a token is already pending
		}
	}
}

// Acquire takes a unit, waiting while all are busy until deadline (zero:
// none) or ctx's end. A call that comes back into the same provider from
// one of its own host calls (reentrant) may not wait — its caller holds a
// unit and waits for it — so it runs outside the bound: overflow true, and
// the caller must not Release. A wait that reaches the deadline is a
// Timeout naming provider, tool and setting, the config key that sets the
// bound.
func (b *Bound) Acquire(ctx context.Context, deadline time.Time, reentrant bool, provider, tool, setting string) (overflow bool, err error) {
	if b.TryAcquire() {
		return false, nil
	}
	if reentrant {
		return true, nil
	}
	// Announce the wait before the last try: a release after that try sees
	// the waiter and leaves a token (both are sequentially consistent).
	b.waiters.Add(1)
	defer b.waiters.Add(-1)
	var wait <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		wait = t.C
	}
	for {
		if b.TryAcquire() {
			return false, nil
		}
		select {
		case <-b.wake:
		case <-wait:
			return false, abi.Errorf(abi.Timeout, "all %d instances of %s were busy until the deadline of %s (%s)", b.size, provider, tool, setting)
		case <-ctx.Done():
			return false, abi.AsToolError(ctx.Err(), abi.Cancelled)
		}
	}
}
