package wasm

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero/sys"
)

// Deadline states of an instance (instance.deadline): 0 idle, > 0 the
// UnixNano deadline of the call it runs, < 0 interrupted by the watchdog.
const (
	killedTimeout   = -1
	killedCancelled = -2
	killedClosed    = -3 // the Loader is closing (Loader.Close)
)

// watchdog interrupts guests that run past their deadline.
//
// Why not context.WithTimeout per call: a timer and a cancel context cost
// about 3 µs and 8 allocations a call here, and wazero's
// WithCloseOnContextDone adds a goroutine per call and slow checks (see
// instrument.go). Instead one goroutine per Loader scans the in-flight
// instances every DeadlineGranularity; a call costs two atomic operations
// (deadline set and cleared). An overdue instrumented guest gets its $tick
// global zeroed and traps at its next loop header; a module that
// could not be instrumented runs WithCloseOnContextDone and is stopped with
// api.Module.CloseWithExitCode. When nothing has run for a while the
// watchdog parks, and the next call wakes it.
type watchdog struct {
	gran      time.Duration
	trimEvery time.Duration

	mu    sync.Mutex
	provs map[*Provider]struct{}

	parked atomic.Bool
	// closing: Loader.Close has begun; calls are interrupted (stopAll)
	// and none may enter a guest.
	closing atomic.Bool
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

func newWatchdog(gran, trimEvery time.Duration) *watchdog {
	w := &watchdog{
		gran: gran, trimEvery: trimEvery,
		provs: make(map[*Provider]struct{}),
		wake:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go w.run()
	return w
}

func (w *watchdog) add(p *Provider) {
	w.mu.Lock()
	w.provs[p] = struct{}{}
	w.mu.Unlock()
}

func (w *watchdog) remove(p *Provider) {
	w.mu.Lock()
	delete(w.provs, p)
	w.mu.Unlock()
}

// poke wakes a parked watchdog. Called after a deadline is stored: either
// the watchdog's re-scan after parking sees the deadline, or this sees
// parked (both are sequentially consistent atomics).
func (w *watchdog) poke() {
	if w.parked.Load() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

func (w *watchdog) close() {
	close(w.stop)
	<-w.done
}

func (w *watchdog) providers() []*Provider {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]*Provider, 0, len(w.provs))
	for p := range w.provs {
		out = append(out, p)
	}
	return out
}

func (w *watchdog) run() {
	defer close(w.done)
	t := time.NewTicker(w.gran)
	defer t.Stop()
	idleTicks := 0
	lastTrim := time.Now()
	const parkAfter = 50
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		now := time.Now()
		busy := w.scan(now)
		if now.Sub(lastTrim) >= w.trimEvery {
			lastTrim = now
			for _, p := range w.providers() {
				p.trim(now)
			}
		}
		if busy {
			idleTicks = 0
			continue
		}
		if idleTicks++; idleTicks < parkAfter {
			continue
		}
		w.parked.Store(true)
		if w.scan(time.Now()) {
			w.parked.Store(false)
			continue
		}
		t.Stop()
		wait := time.NewTimer(w.trimEvery)
		select {
		case <-w.stop:
			wait.Stop()
			return
		case <-w.wake:
		case <-wait.C:
		}
		wait.Stop()
		w.parked.Store(false)
		t.Reset(w.gran)
		idleTicks = 0
	}
}

// scan interrupts overdue or cancelled calls and reports whether any call
// is in flight.
func (w *watchdog) scan(now time.Time) bool {
	busy := false
	nowNano := now.UnixNano()
	for _, p := range w.providers() {
		p.liveMu.Lock()
		for inst := range p.live {
			dl := inst.deadline.Load()
			if dl <= 0 {
				continue
			}
			busy = true
			switch {
			case nowNano >= dl:
				inst.interrupt(dl, killedTimeout)
			case inst.cancelled():
				inst.interrupt(dl, killedCancelled)
			}
		}
		p.liveMu.Unlock()
	}
	return busy
}

// interrupt stops the call with deadline dl, unless it already ended.
func (inst *instance) interrupt(dl, reason int64) {
	if !inst.deadline.CompareAndSwap(dl, reason) {
		return
	}
	if inst.stop != nil {
		// The guest calls aios.tick at its next loop header, which traps
		// (instrument.go).
		inst.stop.Set(0)
		return
	}
	code := uint32(sys.ExitCodeDeadlineExceeded)
	if reason != killedTimeout {
		code = sys.ExitCodeContextCanceled
	}
	_ = inst.mod.CloseWithExitCode(context.Background(), code)
}

// stopAll interrupts every call running in a guest of the watched
// providers (killedClosed) and returns how many instances are still in
// a guest: interrupted ones count until their call has left the guest.
func (w *watchdog) stopAll() int {
	n := 0
	for _, p := range w.providers() {
		p.liveMu.Lock()
		for inst := range p.live {
			dl := inst.deadline.Load()
			if dl == 0 {
				continue
			}
			n++
			if dl > 0 {
				inst.interrupt(dl, killedClosed)
			}
		}
		p.liveMu.Unlock()
	}
	return n
}

// cancelled reports whether the caller's context of the running call was
// cancelled. The context is read under mu so that the call cannot hand it
// back to its owner (the host pools its contexts) while Err runs here.
func (inst *instance) cancelled() bool {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	return inst.watchCtx != nil && inst.watchCtx.Err() != nil
}
