package host

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// callCtx is the context a provider receives: the caller's context plus the
// call's absolute deadline, without a timer.
//
// context.WithTimeout per call costs about a microsecond and several
// allocations (a timer, a cancelCtx, a goroutine-safe children map). Most
// tools never look at ctx.Done(): they finish long before their deadline.
// callCtx lives inside the call's frame (no allocation of its own) and
// answers Deadline and Err from the absolute deadline and the clock; only when a tool asks for Done() is a
// real context.WithDeadline created, once, and released when the call ends.
// Runtimes that interrupt their guests (wasm, js, python) read
// call.Deadline directly.
//
// It is never reused: runtimes may hand it to goroutines that look at
// Done() after the call has returned (wazero's close-on-cancel watcher
// does). After release, Done returns a closed channel and Err reports Canceled (or
// DeadlineExceeded if the deadline had passed): the call is over.
type callCtx struct {
	parent   context.Context
	deadline time.Time
	// frame is the call's (set with parent and deadline by dispatch):
	// Host.Call under this context makes a nested call of it.
	frame *frame

	mu       sync.Mutex
	lazy     atomic.Pointer[lazyCtx]
	released atomic.Bool
}

// closedChan is returned by Done after release.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

type lazyCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

var _ context.Context = (*callCtx)(nil)

// release ends the context: it stops the lazily created timer, if any.
// The pipeline calls it when the call is over.
func (c *callCtx) release() {
	c.mu.Lock()
	c.released.Store(true)
	if l := c.lazy.Load(); l != nil {
		l.cancel()
	}
	c.mu.Unlock()
}

func (c *callCtx) Deadline() (time.Time, bool) {
	if pd, ok := c.parent.Deadline(); ok && pd.Before(c.deadline) {
		return pd, true
	}
	return c.deadline, true
}

func (c *callCtx) Done() <-chan struct{} {
	if l := c.lazy.Load(); l != nil {
		return l.ctx.Done()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released.Load() {
		return closedChan
	}
	l := c.lazy.Load()
	if l == nil {
		ctx, cancel := context.WithDeadline(c.parent, c.deadline)
		l = &lazyCtx{ctx: ctx, cancel: cancel}
		c.lazy.Store(l)
	}
	return l.ctx.Done()
}

func (c *callCtx) Err() error {
	if l := c.lazy.Load(); l != nil {
		return l.ctx.Err()
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	if c.released.Load() {
		return context.Canceled
	}
	return nil
}

// callCtxKey is the key under which a call's context, and every context
// derived from it, gives that callCtx (Env.CallTool tells a nested call
// made under it from one made under another context).
type callCtxKey struct{}

func (c *callCtx) Value(key any) any {
	if key == (callCtxKey{}) {
		return c
	}
	return c.parent.Value(key)
}
