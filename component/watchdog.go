package component

import (
	"context"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// Deadlines. A context.WithDeadline per call costs a timer and several
// allocations; instead each Provider has one watchdog goroutine that, while
// calls are in flight, checks their deadlines (and the callers' contexts)
// every watchGranularity and closes the core modules of an overdue
// instance. The modules are compiled with wazero's termination checks
// (WithCloseOnContextDone), so a closed module stops at its next function
// entry or loop header; the instance is then discarded. The guest runs
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

// kill closes the instance's modules so the running call stops.
func (inst *instance) kill(reason int32) {
	if !inst.killed.CompareAndSwap(0, reason) {
		return
	}
	if g := inst.p.interruptGlobal; g != "" {
		for _, m := range inst.mods {
			if m == nil {
				continue
			}
			if mg, ok := m.ExportedGlobal(g).(api.MutableGlobal); ok {
				mg.Set(1)
			}
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
