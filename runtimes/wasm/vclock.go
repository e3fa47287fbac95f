package wasm

import "sync/atomic"

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

func (c *virtualClock) sleep(ns int64) {
	if ns > 0 {
		c.t.Add(ns)
	}
}
