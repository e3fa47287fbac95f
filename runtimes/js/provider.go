package js

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"

	"github.com/aios-host/aios-host/abi"
)

// Provider is one loaded .js/.ts file: its registration, its compiled
// program (shared by every runtime of the pool) and the pool.
type Provider struct {
	rt      *Runtime
	g       *guard
	program *goja.Program
	path    string
	logger  *slog.Logger
	logs    *logGate
	reg     *abi.ToolRegister
	index   map[string]int
	names   []string
	budget  uint64

	free   chan *worker  // idle runtimes
	tokens chan struct{} // one per live runtime, bounded by PoolSize
	// extras holds one token per runtime started beyond the pool for a
	// nested call of the provider's own tool (see getSlow), bounded by
	// max(PoolSize, 8); each serves one call and is dropped.
	extras chan struct{}
	closed atomic.Bool
	// done is closed by Close: it wakes the calls waiting for a runtime
	// (getSlow), which got one once a call in flight returned and ran on
	// the closed provider, on a runtime started for them.
	done chan struct{}
	mu   sync.Mutex

	// lost counts abandoned runtimes whose goroutine is still inside an
	// uninterruptible built-in (see worker.run); each drops itself when
	// the built-in returns.
	lost atomic.Int64
}

// Abandoned reports how many of the provider's runtimes were abandoned
// after an interrupt they could not honour and are still running a native
// built-in (they burn CPU and hold memory until it returns, then drop
// themselves).
func (p *Provider) Abandoned() int { return int(p.lost.Load()) }

// KeepsDeadlines implements abi.DeadlineKeeper: Call returns by the call's
// deadline plus one watchdog tick, or plus abandonGrace when a native
// built-in cannot be interrupted (the runtime is then abandoned), so the
// host needs no watcher goroutine of its own.
func (p *Provider) KeepsDeadlines() bool { return true }

// PoolStats implements host.PoolStats (the aios_provider_pool metric): the
// idle runtimes and those serving calls (the pool's and any started beyond
// it for a nested call of the provider's own tool).
func (p *Provider) PoolStats() (idle, busy int) {
	idle = len(p.free)
	return idle, max(len(p.tokens)+len(p.extras)-idle, 0)
}

var _ abi.DeadlineKeeper = (*Provider)(nil)

// Describe implements abi.Provider.
func (p *Provider) Describe() *abi.ToolRegister { return p.reg }

// Close implements abi.Provider: idle runtimes are dropped now, busy ones
// when their call returns.
func (p *Provider) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	close(p.done)
	p.drainFree()
	return nil
}

// drainFree drops the idle runtimes.
func (p *Provider) drainFree() {
	for {
		select {
		case w := <-p.free:
			p.drop(w)
		default:
			return
		}
	}
}

// testHookBeforeFree, when set (tests), runs as a call hands its runtime
// back to the pool.
var testHookBeforeFree func(*Provider)

// Call implements abi.Provider.
func (p *Provider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (any, error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	idx, ok := p.index[call.Tool]
	if !ok || p.closed.Load() || p.rt.closed.Load() {
		return nil, p.refuse(call.Tool, ok)
	}
	if n := p.lost.Load(); n >= int64(p.rt.opts.PoolSize) {
		// Each abandoned runtime still burns a core inside a built-in
		// that cannot be interrupted; serving on would let repeated calls
		// pile up burners without end.
		return nil, abi.Errorf(abi.Unavailable, "provider %s: %d of its runtimes are still running native built-ins they could not be interrupted in (abandoned after their calls' deadlines; pool_size %d); it serves again when one returns", p.reg.Provider.ID, n, p.rt.opts.PoolSize)
	}
	w, err := p.get(ctx, call)
	if err != nil {
		return nil, err
	}
	deadline := call.Deadline
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	if deadline.IsZero() {
		deadline = time.Now().Add(p.rt.opts.DefaultTimeout)
	}
	res, te, fate := w.run(ctx, idx, call, env, deadline)
	switch {
	case fate == fateLost:
		<-w.slot() // its goroutine forgets it when the built-in returns
	case fate == fateDiscard || p.closed.Load() || w.extra:
		p.drop(w)
	default:
		if testHookBeforeFree != nil {
			testHookBeforeFree(p)
		}
		p.free <- w
		if p.closed.Load() {
			// Close ran between the check above and the hand-back: its
			// drain may have found the pool empty, and the runtime would
			// sit idle for good (TestCloseDuringHandBackDropsRuntime).
			p.drainFree()
		}
	}
	if te != nil {
		return nil, te
	}
	return res, nil
}

// refuse is Call's cold path (kept out of Call's frame).
//
//go:noinline
func (p *Provider) refuse(tool string, known bool) error {
	if !known {
		return abi.Errorf(abi.NotFound, "provider %s has no tool %q", p.reg.Provider.ID, tool)
	}
	if !p.closed.Load() {
		return abi.Errorf(abi.Unavailable, "provider %s: %s", p.reg.Provider.ID, runtimeClosed)
	}
	return abi.Errorf(abi.Unavailable, "provider %s is closed", p.reg.Provider.ID)
}

// runtimeClosed is why a provider whose runtime was closed (Runtime.Close,
// or Loader.Close of its .js or .ts loader) before the provider itself
// refuses calls: "provider … is closed" blamed a provider nobody closed.
const runtimeClosed = "the JS runtime that loaded it is closed (Runtime.Close or Loader.Close)"

// get takes an idle runtime, makes a new one while the pool has room, or
// waits for one.
func (p *Provider) get(ctx context.Context, call *abi.ToolCall) (*worker, error) {
	select {
	case w := <-p.free:
		return w, nil
	default:
		return p.getSlow(ctx, call)
	}
}

// nestKey marks the context of a ctx.callTool of p's: a call that reaches
// p again with it (directly, or through tools of other providers and
// runtimes, whose contexts carry it on) was made while one of p's runtimes
// waits for it (runtimes/wasm does the same).
type nestKey struct{ p *Provider }

// getSlow makes a runtime or waits for one. A nested call of this
// provider's own tool (its caller is this provider, or a tool this
// provider's ctx.callTool called on the way: nestKey) was made by one of its
// runtimes, which waits for it and cannot serve it: with every pooled
// runtime busy in such calls (or a pool of one) waiting would last until
// the deadline, so such a call that finds the pool full gets a runtime
// beyond it, dropped after the call.
//
//go:noinline
func (p *Provider) getSlow(ctx context.Context, call *abi.ToolCall) (*worker, error) {
	var extras chan struct{} // nil: never ready
	if call.Depth > 0 && (call.Caller == p.reg.Provider.ID || ctx.Value(nestKey{p}) != nil) {
		select {
		case w := <-p.free:
			return w, nil
		case p.tokens <- struct{}{}:
			return p.start(false)
		default:
			extras = p.extras
		}
	}
	select {
	case w := <-p.free:
		return w, nil
	case p.tokens <- struct{}{}:
		return p.start(false)
	case extras <- struct{}{}:
		return p.start(true)
	case <-p.done:
		// As runtimes/wasm's pool wakes its queue: a call that waited
		// for a runtime is refused, as one arriving after Close is.
		return nil, abi.Errorf(abi.Unavailable, "provider %s was closed (removed, replaced by a reload, or the host shutting down) while the call of %s waited for one of its %d busy JS runtimes (runtimes.js.pool_size)",
			p.reg.Provider.ID, call.Tool, cap(p.tokens))
	case <-ctx.Done():
		// Say why the call never ran: a bare "context deadline exceeded"
		// read as a slow tool, not a full pool.
		te := abi.AsToolError(ctx.Err(), abi.Cancelled)
		what := "was cancelled"
		if te.Code == abi.Timeout {
			what = "reached its deadline"
		}
		return nil, &abi.ToolError{Code: te.Code, Message: fmt.Sprintf("the call of %s %s while all %d JS runtimes of %s were busy (runtimes.js.pool_size): %s",
			call.Tool, what, cap(p.tokens), p.reg.Provider.ID, te.Message)}
	}
}

// start makes a runtime for the slot just taken (of the pool, or beyond
// it when extra).
func (p *Provider) start(extra bool) (*worker, error) {
	w, err := p.newWorker()
	if err != nil {
		if extra {
			<-p.extras
		} else {
			<-p.tokens
		}
		return nil, &abi.ToolError{Code: abi.Unavailable, Message: fmt.Sprintf("provider %s: cannot start a JS runtime: %v", p.reg.Provider.ID, err)}
	}
	w.extra = extra
	if err := w.bindTools(p.names); err != nil {
		p.drop(w)
		return nil, &abi.ToolError{Code: abi.Unavailable, Message: fmt.Sprintf("provider %s: %v", p.reg.Provider.ID, err)}
	}
	return w, nil
}

// Prewarm starts runtimes until the pool holds n of them (at most
// PoolSize), so the first calls of a burst do not pay for instantiating a
// runtime and running the provider's top-level code (benchmarks use it to
// measure calls alone).
func (p *Provider) Prewarm(n int) error {
	n = min(n, cap(p.tokens))
	for len(p.tokens) < n {
		if p.closed.Load() || p.rt.closed.Load() {
			return fmt.Errorf("provider %s is closed", p.reg.Provider.ID)
		}
		select {
		case p.tokens <- struct{}{}:
		default:
			return nil
		}
		w, err := p.newWorker()
		if err != nil {
			<-p.tokens
			return fmt.Errorf("provider %s: cannot start a JS runtime: %w", p.reg.Provider.ID, err)
		}
		if err := w.bindTools(p.names); err != nil {
			p.drop(w)
			return fmt.Errorf("provider %s: %w", p.reg.Provider.ID, err)
		}
		p.free <- w
	}
	return nil
}

// drop discards a runtime and frees its pool slot.
func (p *Provider) drop(w *worker) {
	p.forget(w)
	<-w.slot()
}

// forget discards a runtime whose pool slot is already free.
func (p *Provider) forget(w *worker) {
	p.g.remove(w)
	w.stop()
	w.mu.Lock()
	w.vm = nil
	w.mu.Unlock()
}

// registerGuarded runs register under the load deadline: reading the
// registration runs the provider's getters (a returns schema, examples, a
// whole parameters schema), which may loop or throw.
func (p *Provider) registerGuarded(w *worker, src abi.Source, runtime string) (reg *abi.ToolRegister, err error) {
	w.begin(context.Background(), time.Now().Add(p.rt.opts.LoadTimeout), "")
	func() {
		defer func() {
			if r := recover(); r != nil {
				reg, err = nil, fmt.Errorf("reading its registration: %s", w.panicError(r).Message)
			}
		}()
		reg, err = p.register(w, src, runtime)
	}()
	if intr, _ := w.end(); intr != nil && err == nil {
		reg, err = nil, fmt.Errorf("reading its registration: %s", intr.Message)
	}
	return reg, err
}

// register builds the ToolRegister from the first runtime's registrations.
func (p *Provider) register(w *worker, src abi.Source, runtime string) (*abi.ToolRegister, error) {
	if pend := w.internal.Get("pending"); pend != nil {
		if fn, ok := goja.AssertFunction(pend); ok {
			v, err := fn(goja.Undefined())
			if err == nil {
				var keys []string
				_ = w.vm.ExportTo(v, &keys)
				if len(keys) > 0 {
					return nil, fmt.Errorf("@tool methods %v are not in an @Agent class: decorate the class with @Agent({...})", keys)
				}
			}
		}
	}
	toolsObj, ok := w.internal.Get("tools").(*goja.Object)
	if !ok {
		return nil, fmt.Errorf("SDK prelude lost its tool list")
	}
	n := int(toolsObj.Get("length").ToInteger())
	if n == 0 {
		return nil, fmt.Errorf("the provider registers no tools: call aios.registerTool(def, handler) or decorate methods with @tool inside an @Agent class")
	}
	reg := &abi.ToolRegister{Format: abi.FormatVersion}
	var info map[string]any
	if fn, ok := goja.AssertFunction(w.internal.Get("info")); ok {
		if v, err := fn(goja.Undefined()); err == nil && !goja.IsNull(v) {
			ex := exporter{vm: w.vm, limit: p.rt.opts.MaxResultBytes, maxElems: int64(w.budget / slotBytes)}
			iv, _, err := ex.export(v)
			if err != nil {
				return nil, fmt.Errorf("provider info: %v", err)
			}
			info, _ = iv.(map[string]any)
		}
	}
	str := func(k string) string { s, _ := info[k].(string); return s }
	reg.Provider = abi.ProviderInfo{
		ID:          src.ProviderID,
		Name:        str("name"),
		Version:     str("version"),
		Runtime:     runtime,
		Description: str("description"),
	}
	// infoAt names the line of aios.provider(...) or @Agent: the checks
	// below named the file alone (TestProviderOptionErrorsNameLine). (Its
	// version, and a tool's, the SDK checks where they are declared:
	// TestVersionCheckedWhereDeclared.)
	infoAt := ""
	if s := str("site"); s != "" {
		infoAt = " (at " + s + ")"
	}
	if reg.Provider.ID == "" {
		reg.Provider.ID = str("id")
		if err := abi.ValidateProviderID(reg.Provider.ID); err != nil && reg.Provider.ID != "" {
			return nil, fmt.Errorf("%w%s", err, infoAt)
		}
	}
	if reg.Provider.ID == "" {
		reg.Provider.ID = src.LocalID()
	}
	if err := abi.ValidateProviderID(reg.Provider.ID); err != nil {
		return nil, err
	}
	if caps, ok := info["capabilities"].([]any); ok {
		for _, c := range caps {
			s, _ := c.(string)
			if _, err := abi.ParseCapability(s); err != nil {
				return nil, fmt.Errorf("provider capabilities: %v%s", err, infoAt)
			}
			reg.Provider.Capabilities = append(reg.Provider.Capabilities, s)
		}
	}
	p.index = make(map[string]int, n)
	for i := 0; i < n; i++ {
		t := toolsObj.Get(fmt.Sprint(i)).(*goja.Object)
		// Bounded as results are (a sparse array's holes are Go slots:
		// TestSparseArrayArgumentsBounded).
		ex := exporter{vm: w.vm, limit: p.rt.opts.MaxResultBytes, maxElems: int64(w.budget / slotBytes)}
		// at names the line that declared the tool, as the SDK's own
		// checks do: a member of the wrong type named only the file
		// (TestToolDefinitionErrorNamesLine).
		at := ""
		if site := t.Get("site"); site != nil && goja.IsString(site) && site.String() != "" {
			at = " (at " + site.String() + ")"
		}
		dv, _, err := ex.export(t.Get("def"))
		if err != nil {
			return nil, fmt.Errorf("tool #%d definition: %v%s", i+1, err, at)
		}
		def, err := toolDef(dv.(map[string]any))
		if err != nil {
			return nil, fmt.Errorf("%w%s", err, at)
		}
		if def.Version == "" {
			def.Version = reg.Provider.Version
		}
		reg.Tools = append(reg.Tools, def)
		p.index[def.Name] = i
		p.names = append(p.names, def.Name)
	}
	budget := p.rt.opts.MemoryBudget
	if b, ok := p.rt.opts.ProviderBudgets[reg.Provider.ID]; ok && b > 0 {
		budget = b
	}
	p.budget = uint64(budget)
	w.applyBudget(p.budget)
	if err := w.bindTools(p.names); err != nil {
		return nil, err
	}
	return reg, nil
}

// toolDef converts a normalized definition from the SDK (snake_case keys)
// into an abi.ToolDef, via the JSON codec so every field is checked once.
func toolDef(m map[string]any) (abi.ToolDef, error) {
	var def abi.ToolDef
	b, err := abi.JSON.Marshal(m)
	if err != nil {
		return def, fmt.Errorf("tool definition: %v", err)
	}
	if err := abi.JSON.Unmarshal(b, &def); err != nil {
		return def, fmt.Errorf("tool %v: bad definition: %v", m["name"], err)
	}
	if err := abi.ValidateToolName(def.Name); err != nil {
		return def, err
	}
	for _, c := range def.CapabilityRequired {
		if _, err := abi.ParseCapability(c); err != nil {
			return def, fmt.Errorf("tool %s: capabilityRequired: %v", def.Name, err)
		}
	}
	return def, nil
}
