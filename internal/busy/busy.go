// Package busy bounds how many instances of one provider serve calls at
// once, without a lock on the call path: the bound is an atomic counter,
// and only a call that finds it reached takes a lock and waits, in a
// queue: a unit a call gives back goes to the call that has waited
// longest, not to whichever call asks next.
// The WASM core runtime and both component engines use it.
package busy

import (
	"context"
	"fmt"
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

	// extra holds a token per unit in use beyond the bound, by reentrant
	// calls (Acquire): at most max(size, MinExtra) at once. Unbounded, a
	// guest whose host call fans out calls back into its own provider (a
	// JS relay's Promise.all) made an instance per call, each as large as
	// the memory limit allows.
	extra chan struct{}

	// closed is closed by Close, which sets why first: the calls waiting
	// for a unit are told at once, not when a busy call ends or their
	// deadline passes.
	closed    chan struct{}
	closeOnce sync.Once
	why       *abi.ToolError
}

// MinExtra is the least number of units a Bound lets reentrant calls take
// beyond it at once (the JS and Python runtimes bound their runtimes and
// workers beyond the pool the same way).
const MinExtra = 8

// New returns a bound of size (at least 1) units.
func New(size int) *Bound {
	size = max(size, 1)
	return &Bound{size: int32(size), extra: make(chan struct{}, max(size, MinExtra)), closed: make(chan struct{})}
}

// Close tells the calls waiting for a unit, and those that would wait
// later, that the provider is closed: Acquire returns why (a copy) rather
// than wait for a unit a closed provider's calls give back only as they
// end. The units in use are given back as before. Only the first Close
// counts.
func (b *Bound) Close(why *abi.ToolError) {
	if why == nil {
		why = abi.Errorf(abi.Unavailable, "the provider is closed")
	}
	b.closeOnce.Do(func() {
		b.why = why
		close(b.closed)
	})
}

// Extra is how many units reentrant calls may take beyond the bound at once.
func (b *Bound) Extra() int { return cap(b.extra) }

// ReleaseExtra returns a unit taken beyond the bound (Acquire's overflow).
func (b *Bound) ReleaseExtra() { <-b.extra }

// Chain is the mark a guest's host call puts on the context of the call it
// makes (as the value of the runtime's nest key): the first call of the
// chain that comes back into the provider from that host call and finds
// every unit busy runs free, outside every bound (AcquireIn), so a guest
// recursing through call_tool gets one instance per level, up to
// limits.max_call_depth; further calls back from the same host call, which
// only a relay of another runtime fanning out can make, take Extra units.
type Chain struct{ taken atomic.Bool }

// NewChain makes the mark of one host call.
func NewChain() *Chain { return new(Chain) }

// Take takes c's free unit; false when it is taken or c is nil.
func (c *Chain) Take() bool { return c != nil && c.taken.CompareAndSwap(false, true) }

// AcquireIn is Acquire for a call that, when reentrant, came back from the
// host call chain marks (nil when the mark is not a Chain): a unit of the
// bound if one is free, else chain's free unit (free true: nothing to give
// back), else as Acquire.
func (b *Bound) AcquireIn(ctx context.Context, deadline time.Time, reentrant bool, chain *Chain, provider, tool, setting string) (free, overflow bool, err error) {
	if b.TryAcquire() {
		return false, false, nil
	}
	if reentrant && chain.Take() {
		return true, false, nil
	}
	overflow, err = b.Acquire(ctx, deadline, reentrant, provider, tool, setting)
	return false, overflow, err
}

// ReleaseUnit returns a unit Acquire gave: beyond the bound when overflow.
func (b *Bound) ReleaseUnit(overflow bool) {
	if overflow {
		b.ReleaseExtra()
	} else {
		b.Release()
	}
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
// host calls (reentrant) may not wait for the bound alone — its caller
// holds a unit and waits for it — so it may run outside the bound, on one
// of Extra units beyond it: overflow true, given back with ReleaseExtra
// (ReleaseUnit). When those are taken too it waits for either kind. A wait
// that reaches the deadline is a Timeout naming provider, tool and
// setting, the config key that sets the bound.
func (b *Bound) Acquire(ctx context.Context, deadline time.Time, reentrant bool, provider, tool, setting string) (overflow bool, err error) {
	if b.TryAcquire() {
		return false, nil
	}
	var extra chan struct{} // nil: never ready
	if reentrant {
		select {
		case b.extra <- struct{}{}:
			return true, nil
		default:
		}
		extra = b.extra
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
	beyond := ""
	if reentrant {
		beyond = fmt.Sprintf(", and the %d started beyond them for calls that came back into it from its own host calls,", cap(b.extra))
	}
	select {
	case <-ch:
		return false, nil
	case extra <- struct{}{}:
		overflow = true
	case <-b.closed:
		why := *b.why
		err = &why
	case <-wait:
		err = abi.Errorf(abi.Timeout, "all %d instances of %s%s were busy until the deadline of %s (%s)", b.size, provider, beyond, tool, setting)
	case <-ctx.Done():
		// Say which call and that it waited for the pool: the
		// context's own text ("context canceled") names neither.
		te := abi.AsToolError(ctx.Err(), abi.Cancelled)
		what := "was cancelled"
		if te.Code == abi.Timeout {
			what = "reached its deadline"
		}
		err = abi.Errorf(te.Code, "the call of %s %s while all %d instances of %s%s were busy (%s): %s", tool, what, b.size, provider, beyond, setting, te.Message)
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
	return overflow, err
}
