package component

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/aios-host/aios-host/runtimes/wasm/instrument"
)

// Deadlines. A context.WithDeadline per call costs a timer and several
// allocations; instead each Provider has one watchdog goroutine that, while
// calls are in flight, checks their deadlines (and the callers' contexts)
// every watchGranularity and closes the core modules of an overdue
// instance: an instrumented instance (package runtimes/wasm/instrument) has
// its $tick globals zeroed and traps in aios.tick at its next loop header;
// modules that could not be instrumented run with wazero's termination
// checks (WithCloseOnContextDone) and are closed, stopping at their next
// function entry or loop header. The instance is then discarded. The guest runs
// under context.Background(): the caller's context never reaches wazero,
// whose watcher goroutine may outlive the call.

const watchGranularity = 5 * time.Millisecond

type watchdog struct {
	mu     sync.Mutex
	active map[*instance]context.Context
	wake   chan struct{}
	stop   chan struct{}
	done   chan struct{}
}

func newWatchdog() *watchdog {
	w := &watchdog{active: map[*instance]context.Context{}, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *watchdog) close() {
	close(w.stop)
	<-w.done
}

// enter registers inst, running a call until deadline (UnixNano; 0 = none)
// for a caller whose context is ctx. ctx is read only under w.mu, and
// leave drops it before the call returns: the host may reuse it afterwards.
func (w *watchdog) enter(inst *instance, deadline int64, ctx context.Context) {
	inst.deadline.Store(deadline)
	w.mu.Lock()
	first := len(w.active) == 0
	w.active[inst] = ctx
	w.mu.Unlock()
	if first {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// leave unregisters inst; it reports whether the watchdog stopped the call.
func (w *watchdog) leave(inst *instance) (killed int32) {
	w.mu.Lock()
	delete(w.active, inst)
	w.mu.Unlock()
	return inst.killed.Load()
}

func (w *watchdog) run() {
	defer close(w.done)
	t := time.NewTicker(watchGranularity)
	defer t.Stop()
	for {
		w.mu.Lock()
		idle := len(w.active) == 0
		w.mu.Unlock()
		if idle {
			select {
			case <-w.wake:
			case <-w.stop:
				return
			}
		}
		select {
		case <-t.C:
		case <-w.stop:
			return
		}
		now := time.Now().UnixNano()
		w.mu.Lock()
		for inst, ctx := range w.active {
			dl := inst.deadline.Load()
			switch {
			case dl > 0 && now >= dl:
				inst.kill(killedTimeout)
			case ctx != nil && ctx.Err() != nil:
				inst.kill(killedCancelled)
			}
		}
		w.mu.Unlock()
	}
}

const (
	killedTimeout   = 1
	killedCancelled = 2
)

// errInterrupted aborts a guest from aios.tick.
var errInterrupted = errors.New("interrupted by the host watchdog")

// tick implements aios.tick for instrumented modules: called every
// instrument.Budget loop iterations and as soon as kill zeroes $tick, it
// traps a stopped call (or an instantiation whose context ended) and
// otherwise hands out a new budget.
func (inst *instance) tick(_ context.Context, _ api.Module, stack []uint64) {
	if inst.killed.Load() != 0 || (inst.initCtx != nil && inst.initCtx.Err() != nil) {
		panic(errInterrupted)
	}
	stack[0] = instrument.Budget
}

// kill stops the running call: it zeroes the $tick globals of an
// instrumented instance, else closes its modules (wazero's checks).
func (inst *instance) kill(reason int32) {
	if !inst.killed.CompareAndSwap(0, reason) {
		return
	}
	if inst.p.instrumented {
		// Each module calls aios.tick at its next loop header, which traps
		// (inst.tick).
		for _, g := range inst.ticks {
			g.Set(0)
		}
		return
	}
	code := uint32(sys.ExitCodeDeadlineExceeded)
	if reason == killedCancelled {
		code = sys.ExitCodeContextCanceled
	}
	for _, m := range inst.mods {
		if m != nil {
			_ = m.CloseWithExitCode(context.Background(), code)
		}
	}
}
