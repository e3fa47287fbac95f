package js

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// guard is the watchdog shared by every provider of one Loader. While any
// call runs it wakes every interval and, for each busy worker,
//
//   - interrupts the runtime when the call's deadline has passed or its
//     context is done (goja's vm.Interrupt; the waiting event loop is woken
//     too), so no timer is allocated per call;
//   - samples the Go heap (runtime/metrics, no stop-the-world) and
//     interrupts calls whose heap growth since they started exceeds their
//     provider's memory budget. Growth is confirmed with one forced GC first,
//     so short-lived garbage is not mistaken for a bomb.
//
// It sleeps (no ticker) after a short linger once no call is running.
type guard struct {
	interval time.Duration
	linger   time.Duration

	mu      sync.Mutex
	workers map[*worker]struct{}

	active   atomic.Int64
	sleeping atomic.Bool
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once

	sample  []metrics.Sample
	lastGC  time.Time
	scratch []*worker
}

func newGuard(interval time.Duration) *guard {
	g := &guard{
		interval: interval,
		linger:   200 * time.Millisecond,
		workers:  make(map[*worker]struct{}),
		kick:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		sample:   []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}},
	}
	go g.run()
	return g
}

// close stops the guard once no call is running: a call in flight at
// Close keeps its deadline and memory checks until it ends (stopping at
// once left an in-process call that spins running past its deadline,
// TestChaosEverythingAtOnce). It waits for the guard's goroutine
// only when no call is running.
func (g *guard) close() {
	g.once.Do(func() { close(g.stop) })
	if g.active.Load() == 0 {
		<-g.done
	}
}

func (g *guard) add(w *worker) {
	g.mu.Lock()
	g.workers[w] = struct{}{}
	g.mu.Unlock()
}

func (g *guard) remove(w *worker) {
	g.mu.Lock()
	delete(g.workers, w)
	g.mu.Unlock()
}

// enter and leave bracket every call (and every load-time script run).
func (g *guard) enter() {
	if g.active.Add(1) == 1 && g.sleeping.Load() {
		select {
		case g.kick <- struct{}{}:
		default:
		}
	}
}

func (g *guard) leave() { g.active.Add(-1) }

func (g *guard) heap() uint64 {
	metrics.Read(g.sample)
	if g.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return g.sample[0].Value.Uint64()
}

func (g *guard) run() {
	defer close(g.done)
	t := time.NewTicker(g.interval)
	defer t.Stop()
	idleSince := time.Now()
	stop := g.stop // nil once closed: the calls still running are watched to their end
	for {
		if stop == nil && g.active.Load() == 0 {
			return
		}
		if g.active.Load() > 0 {
			idleSince = time.Time{}
		} else if idleSince.IsZero() {
			idleSince = time.Now()
		} else if time.Since(idleSince) > g.linger {
			t.Stop()
			g.sleeping.Store(true)
			if g.active.Load() == 0 {
				select {
				case <-g.kick:
				case <-g.stop:
					return
				}
			}
			g.sleeping.Store(false)
			idleSince = time.Time{}
			t.Reset(g.interval)
		}
		select {
		case <-t.C:
		case <-stop:
			if g.active.Load() == 0 {
				return
			}
			stop = nil
		}
		if g.active.Load() > 0 {
			g.scan()
		}
	}
}

// scan checks every busy worker once.
func (g *guard) scan() {
	g.mu.Lock()
	g.scratch = g.scratch[:0]
	for w := range g.workers {
		g.scratch = append(g.scratch, w)
	}
	g.mu.Unlock()
	now := time.Now().UnixNano()
	heap := g.heap()
	var over []*worker
	for _, w := range g.scratch {
		switch w.check(now, heap) {
		case checkOverBudget:
			over = append(over, w)
		}
	}
	if len(over) == 0 {
		return
	}
	// Confirm with a GC: garbage is not growth. At most one forced GC per
	// 50 ms; a real bomb keeps growing and is caught on the next tick.
	if time.Since(g.lastGC) > 50*time.Millisecond {
		runtime.GC()
		g.lastGC = time.Now()
		heap = g.heap()
	}
	for _, w := range over {
		w.checkMemory(heap)
	}
}

type checkResult int

const (
	checkOK checkResult = iota
	checkOverBudget
)

// memoryError is the interrupt reason for a call over its memory budget.
func memoryError(grew, budget uint64) *abi.ToolError {
	return &abi.ToolError{
		Code: abi.ProviderCrashed,
		Message: fmt.Sprintf("memory budget exceeded: the call grew the heap by %d MiB, over the provider's budget of %d MiB; the JS runtime was discarded",
			grew>>20, budget>>20),
	}
}
