package hostop

import (
	"context"
	"time"
)

// MaxInFlight is how many host calls of one worker process run at once.
// A worker reads its answers only when it gets to them, so each host call
// used to start a goroutine as soon as its frame arrived: a tool gathering
// 5 000 ctx.call_tool had 5 000 running at once (and one plugin could use
// a shared rate limit or the Space store for everyone). Past MaxInFlight
// the host stops reading the worker's frames until one finishes: the
// worker waits (its pipe fills), nothing is refused.
const MaxInFlight = 64

// Slots bounds the host calls of one worker running at once. The zero
// value (nil) bounds nothing.
type Slots chan struct{}

// NewSlots makes the slots of one worker.
func NewSlots() Slots { return make(Slots, MaxInFlight) }

// Acquire takes a slot, waiting while MaxInFlight host calls run, until
// ctx ends, the deadline passes (zero: none) or stop is closed; it returns
// ctx's error, context.DeadlineExceeded or context.Canceled then. A slot
// frees when a host call finishes, which needs nothing of the worker, so
// the wait ends.
func (s Slots) Acquire(ctx context.Context, deadline time.Time, stop <-chan struct{}) error {
	if s == nil {
		return nil
	}
	select {
	case s <- struct{}{}:
		return nil
	default:
	}
	var expire <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expire = t.C
	}
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-expire:
		return context.DeadlineExceeded
	case <-stop:
		return context.Canceled
	}
}

// TryAcquire takes a slot if one is free, without waiting.
func (s Slots) TryAcquire() bool {
	if s == nil {
		return true
	}
	select {
	case s <- struct{}{}:
		return true
	default:
		return false
	}
}

// Release frees a slot taken by Acquire (call it when the host call's work
// is done, before its answer is written: the write may wait for the
// worker, the next host call must not).
func (s Slots) Release() {
	if s != nil {
		<-s
	}
}
