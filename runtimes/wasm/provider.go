package wasm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	iwire "github.com/aios-host/aios-host/internal/wire"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Provider is one loaded .wasm module: its own wazero runtime (so its memory
// limit is its own), the compiled code (shared through the Loader's cache)
// and a bounded pool of instances. Instances are not goroutine-safe; each
// serves one call at a time.
type Provider struct {
	l      *Loader
	name   string
	rt     wazero.Runtime
	cm     wazero.CompiledModule
	modCfg wazero.ModuleConfig
	// realClock: the guest has real clocks and sleeps (instance.sleep).
	realClock bool
	reg       *abi.ToolRegister
	logger    *slog.Logger
	sink      *logSink
	// trace logs every message to and from the guest at debug level (nil
	// when the log was not at debug level at load: one nil check).
	trace *iwire.Tracer
	json  bool // the guest registered in JSON, so calls go to it in JSON
	// instrumented: the module carries the aios_interrupt global (see
	// instrument.go); otherwise wazero's own checks stop it.
	instrumented bool
	start        int64 // the module's start function (its index as written), or -1

	hasFree  bool
	poolSize int
	maxMsg   int
	retireAt uint64 // bytes of linear memory past which an instance is not reused (put)
	pages    uint32 // the memory limit, in 64 KiB pages
	memKey   string // its runtimes.wasm.providers key, for messages (memoryKey)

	pool *pool[instance] // idle instances and the bound on busy ones

	liveMu sync.Mutex
	live   map[*instance]struct{} // every open instance, busy or idle

	shared    *sharedModule // the compiled module, shared with providers of the same bytes
	closed    atomic.Bool
	closeOnce sync.Once
}

var _ abi.Provider = (*Provider)(nil)

// Describe implements abi.Provider.
func (p *Provider) Describe() *abi.ToolRegister { return p.reg }

// nestKey marks a context as coming from a host call of p's guest: a call
// back into p from there may exceed the pool bound (the caller holds an
// instance and waits for this call), up to the host's depth limit.
type nestKey struct{ p *Provider }

// Call implements abi.Provider.
func (p *Provider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (any, error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	if p.closed.Load() {
		return nil, &abi.ToolError{Code: abi.Unavailable, Message: "wasm provider " + p.reg.Provider.ID + " is closed"}
	}
	// Counted before closing is read: Loader.Close either sees the call
	// or the call sees closing.
	p.l.calls.Add(1)
	defer p.l.calls.Add(-1)
	if p.l.wd.closing.Load() {
		return nil, &abi.ToolError{Code: abi.Unavailable, Message: "wasm provider " + p.reg.Provider.ID + ": its loader is closed"}
	}
	inst, err := p.get(ctx, call)
	if err != nil {
		return nil, err
	}
	v, err, keep := inst.call(ctx, call, env)
	if keep {
		p.put(inst)
	} else {
		p.discard(inst)
	}
	return v, err
}

// get takes an idle instance or makes one, waiting while the pool is full.
func (p *Provider) get(ctx context.Context, call *abi.ToolCall) (*instance, error) {
	free, overflow, err := p.pool.acquire(ctx, call, nestKey{p}, p.reg.Provider.ID)
	if err != nil {
		return nil, err
	}
	inst := p.pool.take()
	if inst == nil {
		ictx := ctx
		if d, ok := ctx.Deadline(); !call.Deadline.IsZero() && (!ok || call.Deadline.Before(d)) {
			// The call's deadline when its context has a later one or
			// none (an embedder's call): the new instance's start
			// function and _initialize ran to load_timeout, Unavailable,
			// where the call itself stops at it, and so does the
			// wasmtime engine's new instance
			// (TestNewInstanceKeepsToolCallDeadline).
			var cancel context.CancelFunc
			ictx, cancel = context.WithDeadline(ctx, call.Deadline)
			defer cancel()
		}
		var err error
		if inst, err = p.newInstance(ictx); err != nil {
			if !free {
				p.pool.ReleaseUnit(overflow)
			}
			if p.closed.Load() {
				// Closed while the call waited for a busy instance: said
				// as to a call after Close, not in wazero's words about
				// the released module (TestWaiterOnClosedProviderTold).
				return nil, &abi.ToolError{Code: abi.Unavailable, Message: "wasm provider " + p.reg.Provider.ID + " is closed"}
			}
			return nil, newInstanceError(call.Tool, err)
		}
	}
	inst.overflow, inst.uncounted = overflow, free
	return inst, nil
}

// newInstanceError is the error of a call whose new instance could not be
// made (its start function or _initialize trapped, or ran past the call's
// deadline), named by the tool as the call's other failures are: it named
// only the module's file ("x.wasm: _initialize: wasm error: unreachable";
// TestNewInstanceFailureNamesTool). Both engines.
func newInstanceError(tool string, err error) *abi.ToolError {
	out := *abi.AsToolError(err, abi.Unavailable)
	out.Message = tool + ": " + out.Message
	return &out
}

func (p *Provider) put(inst *instance) {
	// An instance whose memory has grown past three quarters of its limit
	// is retired rather than reused: a guest whose heap is never given back
	// (a Go guest's) would otherwise run out of memory in a later call and
	// fail it. The next call gets a fresh instance.
	if p.retireAt > 0 && uint64(inst.mem.Size()) > p.retireAt {
		p.discard(inst)
		return
	}
	// Read overflow before the instance is published: from then on another
	// call's get may take it and overwrite the field.
	overflow, uncounted := inst.overflow, inst.uncounted
	inst.used.Store(true)
	kept := !p.closed.Load() && p.pool.give(inst)
	if !uncounted {
		p.pool.ReleaseUnit(overflow)
	}
	if !kept {
		p.closeInstance(inst)
		return
	}
	// A Close that ran since the check above may have missed the instance.
	if p.closed.Load() && p.pool.remove(inst) {
		p.closeInstance(inst)
	}
}

// discard closes an instance that must not serve again. The instance of
// Load was never counted against the bound (uncounted is set for it).
func (p *Provider) discard(inst *instance) {
	p.closeInstance(inst)
	if !inst.uncounted {
		p.pool.ReleaseUnit(inst.overflow)
	}
}

func (p *Provider) closeInstance(inst *instance) {
	_ = inst.mod.Close(context.Background())
	p.liveMu.Lock()
	delete(p.live, inst)
	n := len(p.live)
	p.liveMu.Unlock()
	if n == 0 && p.closed.Load() {
		p.closeRuntime()
	}
}

// trim closes instances idle longer than IdleTimeout, keeping MinIdle. The
// idle time is measured in trim passes: put only marks an instance used
// (no clock read on the call path), and a pass that finds the mark stamps
// the instance idle from now.
func (p *Provider) trim(now time.Time) {
	trimIdle(p.pool, now, p.l.cfg.MinIdle, p.l.cfg.IdleTimeout, p.closeInstance)
}

// Close implements abi.Provider: idle instances close now, busy ones when
// their call ends, the runtime with the last instance.
func (p *Provider) Close() error {
	if !p.closed.CompareAndSwap(false, true) {
		return nil
	}
	// The watchdog keeps watching the calls still in flight: it lets go
	// of p with its last instance (closeRuntime). Taken off now, a busy
	// guest ran on past its deadline, for ever if it loops.
	// The calls waiting for a busy instance are told now
	// (TestWaiterOnClosedProviderTold).
	p.pool.Close(&abi.ToolError{Code: abi.Unavailable, Message: "wasm provider " + p.reg.Provider.ID + " is closed"})
	for _, inst := range p.pool.drain() {
		p.closeInstance(inst)
	}
	p.liveMu.Lock()
	n := len(p.live)
	p.liveMu.Unlock()
	if n == 0 {
		p.closeRuntime()
	}
	return nil
}

// closeRuntime releases the provider's compiled module; the runtime is
// shared and lives as long as the Loader.
func (p *Provider) closeRuntime() {
	p.closeOnce.Do(func() {
		p.l.wd.remove(p)
		if p.shared != nil {
			p.l.release(p.shared)
		}
	})
}

// Warm makes sure at least n instances (at most pool_size) are open, so
// that the first calls after a load do not pay for instantiation. It is for
// benchmarks and start-up; it waits while the pool is busy, until ctx ends.
func (p *Provider) Warm(ctx context.Context, n int) error {
	p.l.calls.Add(1)
	defer p.l.calls.Add(-1)
	if p.l.wd.closing.Load() {
		return &abi.ToolError{Code: abi.Unavailable, Message: "wasm provider " + p.reg.Provider.ID + ": its loader is closed"}
	}
	var got []*instance
	defer func() {
		for _, inst := range got {
			p.put(inst)
		}
	}()
	for range min(n, p.poolSize) {
		inst, err := p.get(ctx, &abi.ToolCall{Tool: "warm"})
		if err != nil {
			return err
		}
		got = append(got, inst)
	}
	return nil
}

// Instances reports the open instances (busy and idle); for tests and
// metrics.
func (p *Provider) Instances() int {
	p.liveMu.Lock()
	defer p.liveMu.Unlock()
	return len(p.live)
}

// instKey finds the instance serving a call from inside a host function:
// each instance calls its guest with a long-lived context carrying it.
type instKey struct{}

// startKey finds the provider from inside a host function called by a
// start function, which runs before there is an instance.
type startKey struct{}

// newInstance instantiates the module and runs its _initialize under the
// watchdog with the load timeout.
func (p *Provider) newInstance(ctx context.Context) (*instance, error) {
	cfg := p.modCfg
	// A start function runs inside InstantiateModule, before there is an
	// instance for the watchdog to stop: it runs under the load timeout,
	// which aios.tick (instrumented code) or wazero's own checks observe,
	// and a sleep of it ends there too.
	d := p.l.cfg.LoadTimeout
	ictx, cancel := context.WithTimeout(context.WithValue(ctx, startKey{}, p), d)
	var self *instance // set below, once instantiated
	out := &lines{s: p.sink}
	cfg = cfg.WithStdout(stream{p.sink, 0, out}).WithStderr(instStderr{p.sink, &self, out})
	if p.realClock {
		startDL, _ := ictx.Deadline()
		cfg = cfg.WithNanosleep(func(ns int64) {
			if ns == noClockSleep {
				return
			}
			if self == nil { // the start function
				ns = min(ns, max(int64(time.Until(startDL)), 0))
			}
			self.sleep(ns)
		})
	}
	mod, err := p.rt.InstantiateModule(ictx, p.cm, cfg)
	out.flush() // the start function's output
	timedOut := ictx.Err() != nil && ctx.Err() == nil
	cancel()
	if err != nil {
		if timedOut {
			return nil, fmt.Errorf("%s: instantiate: the start function did not finish within runtimes.wasm.load_timeout (%v); the guest was interrupted", p.name, d)
		}
		if cerr := ctx.Err(); cerr != nil {
			// Stopped by the call's deadline or its caller's cancel, as
			// guard says it for _initialize: it was Unavailable, "start
			// function[N] failed: interrupted by the host watchdog",
			// which told the caller the provider was down
			// (TestStartFunctionStoppedByCallSaysWhy).
			if errors.Is(cerr, context.DeadlineExceeded) {
				return nil, abi.Errorf(abi.Timeout, "%s: a new instance's start function ran past the call's deadline; the guest was interrupted", p.name)
			}
			return nil, abi.Errorf(abi.Cancelled, "%s: the call was cancelled while a new instance ran its start function; the guest was interrupted", p.name)
		}
		// One line, as the wasmtime engine's: wazero's text goes on with
		// a wasm stack trace, and names the start function by its index
		// in the rewritten module.
		why, _, _ := strings.Cut(err.Error(), "\n")
		if rest, ok := strings.CutPrefix(why, "start function["); ok && p.start >= 0 {
			if _, reason, ok := strings.Cut(rest, "] failed: "); ok {
				why = startFailed(p.start, reason)
			}
		}
		return nil, &instantiateError{fmt.Sprintf("%s: instantiate: %s", p.name, why), err}
	}
	inst := &instance{
		p:      p,
		mod:    mod,
		mem:    mod.Memory(),
		fAlloc: mod.ExportedFunction(exportAlloc),
		fCall:  mod.ExportedFunction(exportCall),
		fFree:  mod.ExportedFunction(exportFree),
		stack:  make([]uint64, 2),
		enc:    make([]byte, 0, 512),
		out:    out,
	}
	self = inst
	if inst.mem == nil {
		_ = mod.Close(ctx)
		return nil, fmt.Errorf("%s: the module exports no memory", p.name)
	}
	if p.instrumented {
		g, ok := mod.ExportedGlobal(tickExport).(api.MutableGlobal)
		if !ok {
			_ = mod.Close(ctx)
			return nil, fmt.Errorf("%s: the instrumented module lacks its %s global", p.name, tickExport)
		}
		inst.stop = g
	}
	inst.ctx = context.WithValue(context.Background(), instKey{}, inst)
	p.liveMu.Lock()
	p.live[inst] = struct{}{}
	p.liveMu.Unlock()
	if init := mod.ExportedFunction("_initialize"); init != nil {
		if err := inst.guard(ctx, "_initialize", func() error { _, err := init.Call(inst.ctx); return err }); err != nil {
			p.closeInstance(inst)
			if te, ok := err.(*abi.ToolError); ok { // the call's deadline or cancel
				te.Message = p.name + ": " + te.Message
				return nil, te
			}
			return nil, fmt.Errorf("%s: %s", p.name, loadStepFailure("_initialize", err, p.sink))
		}
	}
	return inst, nil
}

// guard runs fn (a load-time guest call) with the load timeout. Its own
// timer interrupts the guest: while it loads, a provider is not yet among
// the watchdog's (a looping _initialize or aios_register hung the load).
// For a new instance a call needs, ctx is the call's: its deadline, when
// sooner, and its cancel interrupt the guest too, answered Timeout or
// Cancelled (the host calls a deadline keeper without a watcher:
// TestWazeroNewInstanceKeepsDeadline).
func (inst *instance) guard(ctx context.Context, what string, fn func() error) error {
	d := inst.p.l.cfg.LoadTimeout
	end, byCall := time.Now().Add(d), false
	if cdl, ok := ctx.Deadline(); ok && cdl.Before(end) {
		end, byCall = cdl, true
	}
	dl := end.UnixNano()
	inst.deadline.Store(dl)
	t := time.AfterFunc(time.Until(end), func() { inst.interrupt(dl, killedTimeout) })
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			inst.interrupt(dl, killedTimeout)
		} else {
			inst.interrupt(dl, killedCancelled)
		}
	})
	// A real-clock sleep in the step ends at ctx's cancel too
	// (instance.sleep): the AfterFunc above marks the instance
	// interrupted, but the sleep went on to its end or load_timeout
	// (TestNewInstanceSleepEndsAtCancel). No host call is served here
	// (inst.env is nil), so callCtx serves only that.
	inst.callCtx = ctx
	err := fn()
	inst.callCtx = nil
	inst.out.flush()
	t.Stop()
	stop()
	if !inst.deadline.CompareAndSwap(dl, 0) {
		switch inst.deadline.Swap(0) {
		case killedClosed:
			return fmt.Errorf("%s was stopped: the wasm runtime is closing (Loader.Close)", what)
		case killedCancelled:
			return abi.Errorf(abi.Cancelled, "the call was cancelled while a new instance ran its %s; the guest was interrupted", what)
		}
		if byCall || ctx.Err() != nil {
			return abi.Errorf(abi.Timeout, "a new instance's %s ran past the call's deadline; the guest was interrupted", what)
		}
		return &loadTimeoutError{fmt.Sprintf("%s did not finish within runtimes.wasm.load_timeout (%v); the guest was interrupted", what, d)}
	}
	return err
}

// loadTimeoutError is guard's error for a load step past load_timeout. It
// names the step itself: its callers do not add "trapped" ("aios_register
// trapped: aios_register did not finish …" named the step twice and told
// a guest that ran too long as one that trapped).
type loadTimeoutError struct{ msg string }

func (e *loadTimeoutError) Error() string { return e.msg }

// loadStepFailure is the reason a load step failed, after what (e.g.
// "aios_register trapped"): err itself when it is a loadTimeoutError. A
// trap's text is its first line, as the wasmtime engine's and a start
// function's (instantiate) are: wazero's went on with "wasm stack trace:"
// and the guest's frames, one per line, in the load error
// (TestLoadTrapErrorOneLine).
func loadStepFailure(what string, err error, sink *logSink) string {
	if _, ok := err.(*loadTimeoutError); ok {
		return sink.failure(err.Error())
	}
	why := err.Error()
	if i := strings.Index(why, "\nwasm stack trace:"); i >= 0 {
		why = why[:i]
	}
	return what + ": " + sink.failure(why)
}

// instance is one instantiated guest.
type instance struct {
	// awaited names the call_tool the guest was in when the call was
	// interrupted ("" if none): the Timeout or Cancelled says it.
	awaited              string
	p                    *Provider
	mod                  api.Module
	mem                  api.Memory
	fAlloc, fCall, fFree api.Function
	ctx                  context.Context // Background + instKey; never done
	stack                []uint64
	enc                  []byte            // the host's encode buffer
	hbuf                 []byte            // host-call response buffer
	inPtr, inCap         uint32            // host-owned input buffer in guest memory
	overflow             bool              // a unit beyond the pool's bound (busy.Bound.ReleaseExtra)
	uncounted            bool              // Load's instance until a call takes it, or a busy.Chain's free one: no unit to give back
	allocating           bool              // inside the guest's aios_alloc or aios_free (alloc, input); same goroutine
	idleMark                               // used since the last trim pass, idle since (Provider.trim)
	stop                 api.MutableGlobal // the $tick global, when instrumented

	// deadline: see watchdog.go.
	deadline atomic.Int64

	// The call being served, for host functions (same goroutine).
	env     abi.Env
	callCtx context.Context
	cur     *abi.ToolCall

	mu       sync.Mutex
	watchCtx context.Context // read by the watchdog under mu

	// panicLine is the last panic line ("fatal error: …") the instance
	// wrote to stderr during its current call (instStderr), for crashError;
	// errLine is its stderr's unfinished line.
	panicLine string
	errLine   []byte

	// out holds its unfinished stdout and stderr lines, logged when a
	// guest call returns.
	out *lines

	// crashes are the messages of the ProviderCrashed errors call_tool
	// handed the guest during its current call (at most maxCrashes): a
	// guest that returns one of them passes on a callee's crash, and its
	// instance is not discarded for it (passedOn).
	crashes []string
}

// maxCrashes bounds instance.crashes: a guest calling a crashing tool in
// a loop keeps the latest ones.
const maxCrashes = 8

// notePassedCrash remembers te, a call_tool answer, when it is a crash.
func (inst *instance) notePassedCrash(te *abi.ToolError) {
	if te == nil || te.Code != abi.ProviderCrashed {
		return
	}
	if len(inst.crashes) >= maxCrashes {
		inst.crashes = append(inst.crashes[:0], inst.crashes[1:]...)
	}
	inst.crashes = append(inst.crashes, te.Message)
}

// keepAfter reports whether the instance may serve again after its guest
// returned te: not after a crash of its own (a guest reporting one, e.g.
// after recovering a panic, is not trusted to continue), but after a
// callee's crash it passes on as call_tool gave it (its caller's healthy
// instance was discarded for it).
func (inst *instance) keepAfter(te *abi.ToolError) bool {
	if te.Code != abi.ProviderCrashed {
		return true
	}
	return inst != nil && slices.Contains(inst.crashes, te.Message)
}

// sleep is the guest's nanosleep with a real clock: a sleep ends at the
// running call's deadline at the latest (at once for an interrupted call),
// so a sleeping guest cannot hold a call past its deadline, and at its
// caller's cancel, as on the wasmtime engine (pollOneoff): the watchdog
// then stops a guest that runs on. It slept on to the deadline, holding
// its caller, its instance and a unit of the pool
// (TestRealClockSleepEndsAtCancel).
func (inst *instance) sleep(ns int64) {
	var done <-chan struct{}
	if inst != nil {
		switch dl := inst.deadline.Load(); {
		case dl < 0:
			return
		case dl > 0:
			ns = min(ns, max(dl-time.Now().UnixNano(), 0))
		}
		if inst.callCtx != nil { // set and read on the call's goroutine
			done = inst.callCtx.Done()
		}
	}
	if done == nil || ns <= 0 {
		time.Sleep(time.Duration(ns))
		return
	}
	t := time.NewTimer(time.Duration(ns))
	select {
	case <-t.C:
	case <-done:
		t.Stop()
	}
}

// KeepsDeadlines implements abi.DeadlineKeeper: the watchdog interrupts a
// guest at most DeadlineGranularity after its deadline, waiting for a free
// instance ends at the deadline, host calls run under the call's deadline,
// and so does a new instance's start (and under load_timeout).
func (p *Provider) KeepsDeadlines() bool { return true }

// PoolStats implements host.PoolStats (the aios_provider_pool metric):
// the idle instances and those serving calls.
func (p *Provider) PoolStats() (idle, busy int) { return p.pool.stats() }
