package wasm

import (
	"math"
	"sync/atomic"
)

// noClockSleep is the sleep wazero's poll_oneoff asks for when none of its
// subscriptions is a clock: its "no timeout" (math.MaxInt64 ns), slept even
// when every fd subscription was answered at once (fd_write on stdout, an
// fd not open). It slept to the call's deadline with a real clock, and with
// the virtual clock moved it 292 years, wrapping negative; the wasmtime
// engine's poll_oneoff returns at once (TestPollWithoutClockReturnsAtOnce).
// The wazero engine's sleeps return at once for it too (so on wazero a
// clock subscription of exactly 2⁶³−1 ns, which wazero cannot tell from
// none, returns at once as well).
const noClockSleep = math.MaxInt64

// virtualClock is the monotonic clock of a guest without the Clock grant
// (and runtimes.wasm.clock not "real"), on both engines: deterministic, it
// advances 1 ns at each reading, and a sleep moves it past the sleep's end
// at once (the sleep takes no time, and the guest's timers still fire).
//
// It advanced 1 ms at each reading (wazero's fake clock, whose step the
// wasmtime engine copied), and a Go guest's garbage collector stalled: the
// runtime's GC CPU limiter times the collector's assists with this clock,
// two readings each, so with a 1 ms step they looked like most of the
// guest's time; the limiter turned them off, and in a wasmexport reactor
// nothing else finishes a cycle, so the heap grew by all each call
// allocated (the image-resize sample: ≈ 1 MiB a call from its 320th call
// on; TestGoGuestHeapCollected). With a 1 ns step the limiter's bucket
// (a second of CPU time) would need a billion assists to fill. Sleeping
// returned at once without moving the clock, which was harmless only
// because each reading moved it a millisecond.
type virtualClock struct{ t atomic.Int64 }

func (c *virtualClock) now() int64 { return c.t.Add(1) }

// vclockMax is as far as a sleep moves the virtual clock (2⁶² ns, 146
// years): a sleep past it ends there. A sleep of nearly 2⁶³ ns (Go's
// time.Sleep of a duration meant as for ever, a timer at math.MaxInt64)
// moved the clock past the int64 range, and it wrapped to -2⁶³: backwards,
// for every instance of the provider (TestVirtualClockDoesNotWrap). From
// here 2⁶² readings would be needed to wrap it. A guest that sleeps past
// it sleeps again and again, each at once, until its call's deadline stops
// it, as a sleep that long does with a real clock.
const vclockMax = math.MaxInt64 / 2

func (c *virtualClock) sleep(ns int64) {
	if ns <= 0 || ns == noClockSleep {
		return
	}
	for {
		t := c.t.Load()
		if t >= vclockMax || c.t.CompareAndSwap(t, t+min(ns, vclockMax-t)) {
			return
		}
	}
}
