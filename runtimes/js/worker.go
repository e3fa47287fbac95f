package js

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"

	"github.com/aios-host/aios-host/abi"
)

// worker is one goja runtime of a provider's pool. It serves one call at a
// time on the calling goroutine, which also runs the runtime's event loop
// while the call's promise is pending: host calls and timers complete on
// other goroutines and post jobs to w.jobs, which only the loop executes.
type worker struct {
	p        *Provider
	extra    bool // started beyond the pool for one nested self call (Provider.getSlow)
	vm       *goja.Runtime
	internal *goja.Object // the prelude's internal view (tools, info, ctx)
	ctxObj   goja.Value
	errCtor  goja.Value // the SDK's ToolError class
	u8Ctor   goja.Value // Uint8Array, captured before user code runs
	errBase  goja.Value // Error, captured before user code runs
	limits   *limits    // size limits of the built-ins (limits.go)
	tools    []slot
	ex       exporter // reused for results
	im       importer // reused for params
	jobs     chan job
	wake     chan struct{}
	budget   uint64

	// Shared with the watchdog, guarded by mu.
	mu          sync.Mutex
	busy        bool
	ctx         context.Context
	deadline    int64  // unix nanoseconds
	tool        string // the tool of the current call ("" while loading)
	provider    string // the provider's id during a call, for messages ("" while loading)
	heapBase    uint64
	interrupted *abi.ToolError
	intrAt      int64 // when interrupted was set (unix nanoseconds)
	abandonSent bool
	finished    bool // serve has finished the current request
	abandoned   bool // the caller gave up waiting; serve drops the worker

	// Loop-goroutine state of the current call.
	inCall bool
	// loading is set while the provider's top-level code runs: its
	// unhandled rejections are tracked too (warnTopLevelRejected).
	loading bool
	cs      callState
	// rejected holds the current call's promises rejected with no handler
	// (the VM's rejection tracker; a handler added later takes one out),
	// at most maxTrackedRejections, rejectedMore counting the rest: when
	// the call succeeds they are warned about (warnRejected).
	rejected     []*goja.Promise
	rejectedMore int
	// timerSeq numbers the runtime's timers across its calls: an id kept
	// from an earlier call (a module-level "last timer") must name no
	// timer of a later one, whose clearTimeout of it cancelled that
	// call's own timer when ids began at 1 in every call
	// (TestStaleTimerIDClearsNothing).
	timerSeq int64

	// The worker's own goroutine (see serve): requests in, and on done
	// true when serve finished one, false when the watchdog gave up on an
	// interrupt (one channel, so run waits with a plain receive, and the
	// signals arrive in the order they were sent).
	reqs chan *request
	done chan bool
	req  request
	args [2]goja.Value // the handler's arguments, reused across calls
	// drain calls a native no-op: a call into the runtime from Go, which
	// runs the promise jobs queued outside one before it returns.
	drain goja.Callable
}

// slot is the channel holding w's token: the pool's, or the one of the
// runtimes beyond it.
func (w *worker) slot() chan struct{} {
	if w.extra {
		return w.p.extras
	}
	return w.p.tokens
}

// request is one call handed to the worker's goroutine.
type request struct {
	ctx      context.Context
	idx      int
	call     *abi.ToolCall
	env      abi.Env
	deadline time.Time
	res      any
	te       *abi.ToolError
	discard  bool
}

// run serves one call on the worker's own goroutine. The goroutine lives as
// long as the runtime, so its stack stays grown to what goja needs; a fresh
// goroutine per call (as the host's deadline net makes) would grow and copy
// its stack on every call.
//
// run returns by the deadline even when the runtime cannot be interrupted
// (a native built-in such as a huge String.prototype.repeat or a
// backtracking regexp runs to its end): abandonGrace after the watchdog's
// interrupt it sends false on w.done, run returns the interrupt's error, and the
// worker's goroutine drops the runtime whenever the built-in returns.
func (w *worker) run(ctx context.Context, idx int, call *abi.ToolCall, env abi.Env, deadline time.Time) (res any, te *abi.ToolError, fate workerFate) {
	if w.reqs == nil {
		w.startServe()
	}
	r := &w.req
	r.ctx, r.idx, r.call, r.env, r.deadline = ctx, idx, call, env, deadline
	w.reqs <- r
	// begin (on serve's goroutine) resets the per-call flags. At most one
	// false (abandon; the watchdog sends it only while the call is busy, so
	// before serve's true) and one true per call: nothing stale is left.
	for !<-w.done {
		if te, lost := w.giveUp(); lost {
			return nil, te, fateLost // serve drops the worker
		}
	}
	res, te = r.res, r.te
	fate = fateReuse
	if r.discard {
		fate = fateDiscard
	}
	*r = request{}
	return res, te, fate
}

// startServe starts the worker's goroutine (first call).
//
//go:noinline
func (w *worker) startServe() {
	w.reqs = make(chan *request)
	w.done = make(chan bool, 2)
	go w.serve()
}

// giveUp marks the current request abandoned unless serve finished it
// meanwhile. It is off run's path to keep run's frame small: run executes
// on the host's per-call goroutine, whose stack starts small.
//
//go:noinline
func (w *worker) giveUp() (*abi.ToolError, bool) {
	w.mu.Lock()
	finished := w.finished
	te := w.interrupted
	if te == nil {
		te = &abi.ToolError{Code: abi.Timeout, Message: w.timeoutMessage()}
	}
	if !finished {
		w.abandoned = true
		w.p.lost.Add(1) // before serve can see abandoned and call lostDone
	}
	w.mu.Unlock()
	if finished {
		return nil, false
	}
	return &abi.ToolError{Code: te.Code, Message: te.Message + " (the runtime did not stop within " +
		abandonGrace().String() + ", it was abandoned)", Data: te.Data}, true
}

// workerFate says what Provider.Call does with a worker after run.
type workerFate int

const (
	fateReuse   workerFate = iota // back to the pool
	fateDiscard                   // drop it now
	fateLost                      // its goroutine drops it when the runtime returns
)

// defaultAbandonGrace is how long after an interrupt run waits for the
// runtime; graceNs holds it (tests lengthen it), read by abandonGrace.
const defaultAbandonGrace = 250 * time.Millisecond

// graceNs is set by its initializer, not by an init function: package
// variables are initialized before any init runs, and a worker process
// serves from procworker.go's init, which runs before this file's would
// (its grace was 0: every interrupted call of a worker process was
// abandoned at the next watchdog tick).
var graceNs = func() *atomic.Int64 {
	var g atomic.Int64
	g.Store(int64(defaultAbandonGrace))
	return &g
}()

func abandonGrace() time.Duration { return time.Duration(graceNs.Load()) }

// serve runs the worker's requests until its request channel closes, or
// drops the worker itself when run abandoned the current request.
func (w *worker) serve() {
	for r := range w.reqs {
		var ab bool
		r.res, r.te, r.discard, ab = w.invoke(r.ctx, r.idx, r.call, r.env, r.deadline)
		if ab {
			w.reqs = nil // forget must not close it again
			w.p.forget(w)
			w.p.lost.Add(-1)
			return
		}
		w.done <- true
	}
}

// stop ends the worker's goroutine.
func (w *worker) stop() {
	if w.reqs != nil {
		close(w.reqs)
		w.reqs = nil
	}
}

type slot struct {
	fn   goja.Callable
	self goja.Value
	site string // where the tool was registered: file:line:col, or ""
}

type callState struct {
	ctx      context.Context
	call     *abi.ToolCall
	env      abi.Env
	sess     *session
	uncaught *abi.ToolError
	// thenable: the handler returned a thenable, not a Promise (its
	// deadline's message says so: unsettledMessage).
	thenable bool
}

// session is the async part of one call, made on its first host call or
// timer: completions for a finished session are dropped.
type session struct {
	done    chan struct{}
	pending int
	timers  map[int64]*jsTimer
	due     timerQueue // the timers by due time (fireDue)
	// hostOps counts the host calls in flight by name (ctx.spaces.write):
	// a handler that returns while one runs did not await it.
	hostOps map[string]int
	// running host calls, at most hostop.MaxInFlight, and those queued
	// past them (startHost).
	hostMu  sync.Mutex
	running int
	queued  []func()
}

// warnUnawaited logs, when the handler of a call that succeeded returned
// while host calls it started were still running, that their outcome is
// dropped (a forgotten await: a failed ctx.spaces.write went unnoticed).
func (w *worker) warnUnawaited(s *session) {
	var names []string
	n := 0
	for name, k := range s.hostOps {
		if k > 0 {
			names = append(names, name)
			n += k
		}
	}
	if n == 0 || w.cs.env == nil || w.cs.call == nil {
		return
	}
	logger := w.cs.env.Logger()
	if logger == nil {
		return
	}
	sort.Strings(names)
	logger.Warn(fmt.Sprintf("the handler of %s returned while %d host call(s) it started still ran (%s): their results and errors are dropped, and they may be cancelled with the call; missing await?",
		w.cs.call.Tool, n, strings.Join(names, ", ")), "source", "js")
}

type job struct {
	sess *session
	run  func() error
}

func (s *session) post(w *worker, j job) {
	select {
	case w.jobs <- j:
	case <-s.done:
	}
}

func (p *Provider) newWorker() (*worker, error) {
	vm := goja.New()
	// goja's constructor of Go errors: not an ECMAScript built-in, not
	// in QuickJS-ng, not one of the globals docs/js.md lists.
	if err := vm.GlobalObject().Delete("GoError"); err != nil {
		return nil, fmt.Errorf("removing goja's GoError global: %w", err)
	}
	vm.SetMaxCallStackSize(p.rt.opts.MaxCallStackSize)
	w := &worker{
		p:      p,
		vm:     vm,
		im:     importer{vm: vm},
		jobs:   make(chan job, 16),
		wake:   make(chan struct{}, 1),
		budget: p.budget,
	}
	vm.SetPromiseRejectionTracker(w.trackRejection)
	w.drain, _ = goja.AssertFunction(vm.ToValue(func(goja.FunctionCall) goja.Value { return goja.Undefined() }))
	if err := w.installLimits(); err != nil {
		return nil, err
	}
	native := vm.NewObject()
	for name, fn := range map[string]func(goja.FunctionCall) goja.Value{
		"read":         w.nativeRead,
		"write":        w.nativeWrite,
		"callTool":     w.nativeCallTool,
		"complete":     w.nativeComplete,
		"log":          w.nativeLog,
		"callInfo":     w.nativeCallInfo,
		"setTimeout":   w.nativeSetTimeout,
		"clearTimeout": w.nativeClearTimeout,
		"inCall":       func(goja.FunctionCall) goja.Value { return w.vm.ToValue(w.inCall) },
		// site is the provider's file:line:col that called the SDK
		// function calling it (where a tool is registered), or "".
		"site": func(goja.FunctionCall) goja.Value {
			return w.vm.ToValue(firstFrame(framesString(w.vm.CaptureCallStack(0, nil))))
		},
	} {
		if err := native.Set(name, fn); err != nil {
			return nil, err
		}
	}
	pv, err := vm.RunProgram(p.rt.prelude)
	if err != nil {
		return nil, fmt.Errorf("SDK prelude: %w", err)
	}
	pf, ok := goja.AssertFunction(pv)
	if !ok {
		return nil, fmt.Errorf("SDK prelude is not a function")
	}
	iv, err := pf(goja.Undefined(), native)
	if err != nil {
		return nil, fmt.Errorf("SDK prelude: %w", err)
	}
	w.internal = iv.(*goja.Object)
	w.ctxObj = w.internal.Get("ctx")
	w.errCtor = w.internal.Get("ToolError")
	w.u8Ctor = w.internal.Get("Uint8Array")
	w.errBase = vm.Get("Error")

	p.g.add(w)
	w.begin(context.Background(), time.Now().Add(p.rt.opts.LoadTimeout), "")
	w.loading = true
	_, err = vm.RunProgram(p.program)
	w.loading = false
	var te *abi.ToolError
	if err != nil {
		te = w.jsError(err) // still under the deadline: it may run getters
	} else {
		w.warnTopLevelRejected() // under the deadline too
	}
	intr, _ := w.end()
	if ie := asInterrupted(err); ie != nil && te != nil && te.Code == abi.Timeout {
		// The watchdog's words are a call's ("the JS handler of provider
		// … was interrupted"): say which limit the top-level code ran
		// past, and where it was (TestTopLevelLoopNamesLoadTimeout).
		p.g.remove(w)
		msg := fmt.Sprintf("deadline exceeded: top-level code ran past the load timeout of %v (runtimes.js.load_timeout): it runs once at load, before any call; a loop that never ends, or work that belongs in a handler?", p.rt.opts.LoadTimeout)
		// A frame of the bundle names a file that exists nowhere.
		if f := firstFrame(framesString(ie.Stack())); f != "" && !strings.Contains(f, ".bundle.js:") {
			msg += " (at " + f + ")"
		}
		return nil, errors.New(msg)
	}
	if te != nil {
		p.g.remove(w)
		return nil, fmt.Errorf("top-level code failed: %s%s", te.Message, stackSuffix(te))
	}
	if intr != nil {
		p.g.remove(w)
		return nil, fmt.Errorf("top-level code: %s", intr.Message)
	}
	return w, nil
}

func stackSuffix(te *abi.ToolError) string {
	if m, ok := te.Data.(map[string]any); ok {
		if s, ok := m["stack"].(string); ok && s != "" {
			return "\n" + s
		}
	}
	return ""
}

// bindTools reads this runtime's handlers and checks they match names.
func (w *worker) bindTools(names []string) error {
	toolsObj, ok := w.internal.Get("tools").(*goja.Object)
	if !ok {
		return fmt.Errorf("SDK prelude lost its tool list")
	}
	n := int(toolsObj.Get("length").ToInteger())
	if n != len(names) {
		return fmt.Errorf("the provider registered %d tools in a new runtime, %d at load: registration must be deterministic", n, len(names))
	}
	w.tools = make([]slot, n)
	for i := range n {
		t := toolsObj.Get(strconv.Itoa(i)).(*goja.Object)
		def := t.Get("def").(*goja.Object)
		if got := def.Get("name").String(); got != names[i] {
			return fmt.Errorf("tool #%d is %q in a new runtime, %q at load: registration must be deterministic", i+1, got, names[i])
		}
		fn, ok := goja.AssertFunction(t.Get("fn"))
		if !ok {
			return fmt.Errorf("tool %s: handler is not a function", names[i])
		}
		w.tools[i] = slot{fn: fn, self: t.Get("self"), site: t.Get("site").String()}
	}
	return nil
}

// jsError is errorFromJS for an error of the provider's top-level code.
func (w *worker) jsError(err error) (te *abi.ToolError) {
	defer func() {
		if r := recover(); r != nil {
			te = w.panicError(r)
		}
	}()
	te, _ = w.errorFromJS(err)
	return te
}

// panicError converts a panic that escaped Go code reading the provider's
// values outside vm.Try — a getter or toString run while a result, a thrown
// value or a registration is converted: an interrupt keeps its reason
// (Timeout, Cancelled, the memory budget), a JS exception is what the
// provider threw, anything else is a crash.
func (w *worker) panicError(r any) (te *abi.ToolError) {
	switch x := r.(type) {
	case *goja.InterruptedError:
		te, _ = w.errorFromJS(x)
		return te
	case *goja.Exception:
		defer func() {
			if r := recover(); r != nil {
				if ie, ok := r.(*goja.InterruptedError); ok {
					te, _ = w.errorFromJS(ie)
					return
				}
				te = &abi.ToolError{Code: abi.ProviderError, Message: "uncaught exception (reading what was thrown threw again)"}
			}
		}()
		return w.errorFromValue(x.Value(), x)
	}
	return crashed(r)
}

// begin marks the worker busy for the watchdog.
func (w *worker) begin(ctx context.Context, deadline time.Time, tool string) {
	w.mu.Lock()
	w.busy = true
	w.ctx = ctx
	w.deadline = deadline.UnixNano()
	w.tool = tool
	w.provider = ""
	if tool != "" && w.p.reg != nil {
		w.provider = w.p.reg.Provider.ID
	}
	w.heapBase = 0
	w.interrupted = nil
	w.finished, w.abandoned, w.abandonSent = false, false, false
	w.mu.Unlock()
	select {
	case <-w.wake:
	default:
	}
	w.p.g.enter()
}

// end marks the worker idle and its request finished, and returns the
// watchdog's interrupt, if any, and whether run abandoned the request.
func (w *worker) end() (*abi.ToolError, bool) {
	w.p.g.leave()
	w.mu.Lock()
	w.busy = false
	w.ctx = nil
	w.finished = true
	intr, ab := w.interrupted, w.abandoned
	w.mu.Unlock()
	return intr, ab
}

// check is the watchdog's per-tick look at a worker.
func (w *worker) check(now int64, heap uint64) checkResult {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.busy || w.vm == nil {
		return checkOK
	}
	if w.interrupted != nil {
		if !w.abandonSent && now-w.intrAt >= int64(abandonGrace()) && w.done != nil {
			w.abandonSent = true
			select {
			case w.done <- false:
			default:
			}
		}
		return checkOK
	}
	if now >= w.deadline {
		w.interruptLocked(&abi.ToolError{Code: abi.Timeout, Message: w.timeoutMessage()})
		return checkOK
	}
	if err := w.ctx.Err(); err != nil {
		te := abi.AsToolError(err, abi.Cancelled)
		if te.Code == abi.Timeout { // the caller's context had the earlier deadline
			te.Message = w.timeoutMessage()
		} else {
			te.Message = "cancelled by its caller: the JS handler " + w.handlerName() + " was interrupted"
		}
		w.interruptLocked(te)
		return checkOK
	}
	if w.heapBase == 0 || heap < w.heapBase {
		// The baseline is the lowest heap seen during the call, not the
		// heap at its start: garbage left by earlier calls (a discarded
		// bomb's arrays, say) is collected while this call runs and must
		// neither hide this call's growth nor be counted as it.
		w.heapBase = heap
		return checkOK
	}
	if heap-w.heapBase > w.budget {
		return checkOverBudget
	}
	return checkOK
}

func (w *worker) checkMemory(heap uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.busy || w.interrupted != nil || w.vm == nil {
		return
	}
	if heap < w.heapBase {
		w.heapBase = heap // the forced GC freed older garbage: a lower baseline
		return
	}
	if heap-w.heapBase > w.budget {
		w.interruptLocked(memoryError(heap-w.heapBase, w.budget))
	}
}

func (w *worker) timeoutMessage() string {
	return "deadline exceeded: the JS handler " + w.handlerName() + " was interrupted"
}

// handlerName names the handler the worker runs (w.mu held): "of tool T
// of provider ID (FILE)", or "of provider FILE" while it loads. The
// provider's file alone did not say which of its tools ran past its
// deadline, and a call names the provider by its id, as aios-host list
// and the audit log do (it named the file alone).
func (w *worker) handlerName() string {
	if w.tool == "" {
		return "of provider " + w.p.path
	}
	if w.provider == "" {
		return "of tool " + w.tool + " of provider " + w.p.path
	}
	return "of tool " + w.tool + " of provider " + w.provider + " (" + w.p.path + ")"
}

func (w *worker) interruptLocked(te *abi.ToolError) {
	w.interrupted = te
	w.intrAt = time.Now().UnixNano()
	if w.limits != nil {
		w.limits.stop.Store(true) // seen by native loops that call back (jsonlimit.go)
	}
	w.vm.Interrupt(te)
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// invoke runs tool idx for one call. discard reports that the runtime must
// not be reused (interrupted, crashed, or left with pending work).
//
// abandoned reports that run gave up waiting for this call (see giveUp).
func (w *worker) invoke(ctx context.Context, idx int, call *abi.ToolCall, env abi.Env, deadline time.Time) (res any, te *abi.ToolError, discard, abandoned bool) {
	w.begin(ctx, deadline, call.Tool)
	w.cs = callState{ctx: ctx, call: call, env: env}
	w.inCall = true
	if len(w.rejected) > 0 || w.rejectedMore > 0 { // left by a call that failed
		clear(w.rejected)
		w.rejected, w.rejectedMore = w.rejected[:0], 0
	}
	defer func() {
		if r := recover(); r != nil {
			res, te, discard = nil, w.panicError(r), true
		}
		if !discard {
			// Getters run by converting the result or what was thrown
			// (outside any call into JS, which ends by running the
			// promise jobs queued meanwhile) may have queued jobs: they
			// are this call's and run now, with its ctx. Left queued,
			// they ran at the start of the runtime's next call, another
			// agent's, where ctx serves that call
			// (TestLateMicrotaskStaysInItsCall).
			if _, err := w.drain(goja.Undefined()); err != nil {
				discard = true
			}
		}
		if s := w.cs.sess; s != nil {
			if te == nil {
				w.warnUnawaited(s)
			}
			close(s.done)
			for _, t := range s.timers {
				t.t.Stop()
			}
		}
		w.cs = callState{}
		w.inCall = false
		w.args = [2]goja.Value{}
		intr, ab := w.end()
		abandoned = ab
		if intr != nil {
			// The watchdog fired; if the call still finished, its outcome
			// stands, but the runtime's interrupt flag may be set.
			discard = true
			if te != nil && w.limits != nil && w.limits.stopThrown {
				// Its error is the one a native loop threw to let the
				// interrupt through (jsonlimit.go): the interrupt's.
				te = intr
			}
		}
	}()
	t := &w.tools[idx]
	w.args[0], w.args[1] = w.im.value(call.Params), w.ctxObj
	v, err := t.fn(t.self, w.args[:]...) // no per-call []Value
	if err != nil {
		te, discard = w.errorFromJS(err)
		return nil, interruptedWhere(err, te, call.Tool), discard, false
	}
	var pr *goja.Promise
	if o, ok := v.(*goja.Object); ok {
		if o.ExportType() == typePromise {
			pr = o.Export().(*goja.Promise)
		} else if pr, err = w.thenable(o); err != nil {
			te, discard = w.errorFromJS(err)
			return nil, interruptedWhere(err, te, call.Tool), discard, false
		}
		w.cs.thenable = pr != nil && o.ExportType() != typePromise
	}
	if pr != nil {
		if te, discard = w.await(ctx, pr); te != nil {
			return nil, te, discard, false
		}
		if pr.State() == goja.PromiseStateRejected {
			te := w.errorFromValue(pr.Result(), nil)
			if !w.isError(pr.Result()) {
				te = rejectedWhere(te, call.Tool, t.site)
			}
			return nil, te, false, false
		}
		v = pr.Result()
	}
	if w.cs.uncaught != nil {
		return nil, w.cs.uncaught, false, false
	}
	ex := &w.ex
	ex.vm, ex.limit, ex.maxElems = w.vm, w.p.rt.opts.MaxResultBytes, int64(w.budget/slotBytes)
	var out any
	if jex := w.vm.Try(func() { out, _, err = ex.export(v) }); jex != nil {
		return nil, w.errorFromValue(jex.Value(), jex), false, false
	}
	if err != nil {
		if ee, ok := err.(*exportError); ok {
			return nil, &abi.ToolError{Code: ee.code, Message: "result of " + call.Tool + ": " + ee.msg}, false, false
		}
		te, discard = w.errorFromJS(err)
		return nil, te, discard, false
	}
	if len(w.rejected) > 0 {
		w.warnRejected()
	}
	return out, nil, false, false
}

// thenable returns a promise following o when o is a thenable (an object
// with a then method: a bundled library's deferred or query builder), as
// await and Promise.resolve adopt one, and nil for any other object. It
// was exported as a value and the call failed "$.then: a function is not
// a JSON value" (TestThenableResultAwaited). The promise is resolved with
// o, which calls o.then in a promise job, as the language does; a then
// getter that throws is the error.
func (w *worker) thenable(o *goja.Object) (*goja.Promise, error) {
	var then goja.Value
	if jex := w.vm.Try(func() { then = o.Get("then") }); jex != nil {
		return nil, jex
	}
	if _, ok := goja.AssertFunction(then); !ok {
		return nil, nil
	}
	pr, resolve, _ := w.vm.NewPromise()
	if err := resolve(o); err != nil {
		return nil, err
	}
	return pr, nil
}

// asInterrupted returns err's InterruptedError, if any. A thrown value
// is checked for first, by its type: errors.As would call the Exception's
// Unwrap, which reads the value outside any JS frame, where a revoked
// Proxy panicked (as errorFromJS says; TestExoticThrownValues).
func asInterrupted(err error) *goja.InterruptedError {
	if _, ok := err.(*goja.Exception); ok || err == nil {
		return nil
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		return ie
	}
	return nil
}

// interruptedWhere adds to the watchdog's error for a handler it stopped
// while it ran (a deadline, a cancel, the memory budget) the tool and the
// source line it was stopped at: "the JS handler of provider … was
// interrupted" named neither (TestBusyHandlerTimeoutNamesToolAndLine).
// te is the watchdog's, shared: it is copied.
func interruptedWhere(err error, te *abi.ToolError, tool string) *abi.ToolError {
	ie := asInterrupted(err)
	if te == nil || ie == nil {
		return te
	}
	c := *te
	if !strings.Contains(c.Message, "of tool "+tool+" ") {
		c.Message += " (tool " + tool + ")"
	}
	// A frame of the bundle names a file that exists nowhere.
	if f := firstFrame(framesString(ie.Stack())); f != "" && !strings.Contains(f, ".bundle.js:") {
		c.Message += " (at " + f + ")"
	}
	return &c
}

// isError reports whether v is an Error object (a ToolError too): the
// value a handler's promise was rejected with names its own line, or is
// a ToolError whose code and message are the error; rejectedWhere's note
// ("throw an Error to have the line") is for other values only
// (TestRejectedWithToolErrorNotBlamedAsValue). Reading a revoked Proxy's
// class throws: not an Error.
func (w *worker) isError(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	if !ok {
		return false
	}
	is := false
	_ = w.vm.Try(func() { is = o.ClassName() == "Error" })
	return is
}

// rejectedWhere adds to te, the error of the value a handler's promise
// was rejected with, the tool and where its handler was registered when
// te names no line: a value that is not an Error thrown in an async
// handler (throw 'not found') carries no stack, and the caller got
// `uncaught "not found"` and nothing of where
// (TestAsyncThrownValueNamesHandler).
func rejectedWhere(te *abi.ToolError, tool, site string) *abi.ToolError {
	if te == nil || te.Code != abi.ProviderError || strings.Contains(te.Message, " (at ") {
		return te
	}
	te.Message += " (rejected by the handler of tool " + tool
	if site != "" {
		te.Message += ", registered at " + site
	}
	te.Message += "; throw an Error to have the line it was thrown at)"
	return te
}

// maxTrackedRejections bounds the unhandled rejections a call keeps.
const maxTrackedRejections = 16

// trackRejection is the VM's promise rejection tracker: a promise of the
// current call rejected with no handler is kept until a handler is added
// to it (an await or a .catch later in the call takes it out).
func (w *worker) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	if !w.inCall && !w.loading {
		return
	}
	switch op {
	case goja.PromiseRejectionReject:
		if len(w.rejected) < maxTrackedRejections {
			w.rejected = append(w.rejected, p)
		} else {
			w.rejectedMore++
		}
	case goja.PromiseRejectionHandle:
		for i, q := range w.rejected {
			if q == p {
				w.rejected = slices.Delete(w.rejected, i, i+1)
				return
			}
		}
		if w.rejectedMore > 0 {
			w.rejectedMore--
		}
	}
}

// warnTopLevelRejected logs the promises the provider's top-level code
// rejected and left unhandled (an async init that failed), once, at the
// provider's load (not again for every runtime of its pool): they loaded
// without a word (TestTopLevelRejectionWarned).
func (w *worker) warnTopLevelRejected() {
	n := len(w.rejected) + w.rejectedMore
	if n == 0 {
		return
	}
	first := w.rejected[0].Result()
	clear(w.rejected)
	w.rejected, w.rejectedMore = w.rejected[:0], 0
	if w.p.reg != nil || w.p.logger == nil {
		return
	}
	what := "a value whose message cannot be read"
	if jex := w.vm.Try(func() { what = w.errorFromValue(first, nil).Message }); jex != nil {
		what = "a value whose message cannot be read"
	}
	w.p.logger.Warn(fmt.Sprintf("provider %s: its top-level code left %d rejected promise(s) that nothing handled (the first with: %s); an async initialisation that failed? (the provider loaded; await the promise in a handler, or .catch it)",
		w.p.path, n, what), "source", "js")
}

// warnRejected logs, for a call that succeeded, the promises it made that
// were rejected and that nothing handled (a forgotten await on a host
// call that failed while the handler awaited something else, a
// Promise.reject left alone): their errors would otherwise go unseen. The
// first one's error is named. It runs in the call (its deadline holds),
// and a reason whose message cannot be read is not an error of the call.
func (w *worker) warnRejected() {
	n := len(w.rejected) + w.rejectedMore
	first := w.rejected[0].Result()
	clear(w.rejected)
	w.rejected, w.rejectedMore = w.rejected[:0], 0
	var logger *slog.Logger
	if w.cs.env != nil {
		logger = w.cs.env.Logger()
	}
	if logger == nil || w.cs.call == nil {
		return
	}
	what := "a value whose message cannot be read"
	if jex := w.vm.Try(func() { what = w.errorFromValue(first, nil).Message }); jex != nil {
		what = "a value whose message cannot be read"
	}
	logger.Warn(fmt.Sprintf("the handler of %s succeeded, but %d promise(s) it made were rejected and nothing handled them (the first with: %s); missing await?",
		w.cs.call.Tool, n, what), "source", "js")
}

// await runs the event loop until pr settles, the deadline passes, or the
// context ends.
func (w *worker) await(ctx context.Context, pr *goja.Promise) (*abi.ToolError, bool) {
	for pr.State() == goja.PromiseStatePending {
		if w.cs.uncaught != nil {
			return w.cs.uncaught, false
		}
		select {
		case j := <-w.jobs:
			if j.sess != w.cs.sess || j.sess == nil {
				continue
			}
			if ctx.Err() != nil {
				// The call ended while this job waited (a host call's
				// answer, maybe its tool's own cancellation): not run, as
				// when the end is seen first. Run, it settled the handler
				// with that answer, "context canceled", instead of the
				// cancellation's words (TestCancelDuringHostCallSaysWhy
				// failed so now and then).
				return w.ctxEnded(ctx), true
			}
			if err := j.run(); err != nil {
				te, discard := w.errorFromJS(err)
				if discard {
					return interruptedWhere(err, te, w.cs.call.Tool), true
				}
				if w.cs.uncaught == nil {
					te.Message = "uncaught in a timer callback: " + te.Message
					w.cs.uncaught = te
				}
			}
		case <-w.wake:
			w.mu.Lock()
			te := w.interrupted
			w.mu.Unlock()
			if te != nil && te.Code == abi.Timeout && w.pendingCount() == 0 {
				te = &abi.ToolError{Code: abi.Timeout, Message: w.unsettledMessage()}
			} else if te != nil && (te.Code == abi.Timeout || te.Code == abi.Cancelled) && w.pendingCount() > 0 {
				// The watchdog's words, and what the handler awaited
				// (which nested call of a chain), as below.
				c := *te
				c.Message = fmt.Sprintf("%s while it awaited %d pending host calls or timers%s", te.Message, w.pendingCount(), w.pendingOps())
				te = &c
			}
			if te != nil {
				return te, true
			}
		case <-ctx.Done():
			return w.ctxEnded(ctx), true
		}
	}
	return nil, false
}

// ctxEnded is the error of a call whose context ended while its handler
// awaited: what it awaited, or that nothing could settle it.
func (w *worker) ctxEnded(ctx context.Context) *abi.ToolError {
	te := abi.AsToolError(ctx.Err(), abi.Cancelled)
	if te.Code == abi.Timeout && w.pendingCount() == 0 {
		te = &abi.ToolError{Code: abi.Timeout, Message: w.unsettledMessage()}
	} else if te.Code == abi.Timeout {
		te = &abi.ToolError{Code: abi.Timeout, Message: fmt.Sprintf("deadline exceeded while the handler of %s awaited %d pending host calls or timers%s", w.cs.call.Tool, w.pendingCount(), w.pendingOps())}
	} else {
		te.Message = fmt.Sprintf("cancelled by its caller while the handler of %s awaited %d pending host calls or timers%s", w.cs.call.Tool, w.pendingCount(), w.pendingOps())
	}
	return te
}

// unsettledMessage is the Timeout of a handler whose promise was pending
// at its deadline with no host call or timer in flight: nothing could
// ever settle it. It said "the JS handler of provider … was interrupted",
// as if busy, or "… awaited 0 pending host calls or timers"
// (TestNeverSettlingPromiseSaysSo).
func (w *worker) unsettledMessage() string {
	if w.cs.thenable {
		// An object with a then method that is no promise-like (a
		// fluent builder's then) waits as await would wait for it.
		return fmt.Sprintf("deadline exceeded: the handler of %s (provider %s) returned a thenable (an object with a then method), awaited as await awaits one, whose then never called the resolve or reject it was given; return a plain object or a Promise", w.cs.call.Tool, w.p.path)
	}
	return fmt.Sprintf("deadline exceeded: the promise of the handler of %s (provider %s) never settled, and no host call or timer that could settle it was pending (a Promise whose resolve or reject is never called?)", w.cs.call.Tool, w.p.path)
}

func (w *worker) pendingCount() int {
	if w.cs.sess == nil {
		return 0
	}
	return w.cs.sess.pending
}

// pendingOps names the host calls in flight ("ctx.callTool(\"t\")") and
// the timers, for a message: ": ctx.callTool("t"), 1 timer", or "".
func (w *worker) pendingOps() string {
	s := w.cs.sess
	if s == nil || s.pending == 0 {
		return ""
	}
	var names []string
	for name, k := range s.hostOps {
		if k == 1 {
			names = append(names, name)
		} else if k > 1 {
			names = append(names, fmt.Sprintf("%d× %s", k, name))
		}
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], fmt.Sprintf("%d more", len(names)-8))
	}
	if n := len(s.timers); n == 1 {
		names = append(names, "1 timer")
	} else if n > 1 {
		names = append(names, fmt.Sprintf("%d timers", n))
	}
	return ": " + strings.Join(names, ", ")
}

// session returns the current call's session, making it on first use.
func (w *worker) session() *session {
	if w.cs.sess == nil {
		w.cs.sess = &session{done: make(chan struct{})}
	}
	return w.cs.sess
}
