package component

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component/cabi"
	"github.com/aios-host/aios-host/internal/busy"
	iwire "github.com/aios-host/aios-host/internal/wire"
	"github.com/aios-host/aios-host/wit"
)

func unmarshalCanonical(b []byte, out *any) error { return abi.UnmarshalJSONValue(b, out) }

// callState is what host functions see during one call.
type callState struct {
	ctx     context.Context // the caller's, for host services
	wctx    context.Context // the guest's, for wazero
	env     abi.Env
	hostErr error
	// nested holds ToolErrors returned to the guest by tools.call-tool,
	// spaces.read and spaces.write (hostError), by
	// message, so that a guest passing the error string through unchanged
	// returns the original ToolError (same code).
	nested map[string]*abi.ToolError
	logged int
	out    GuestOutput // its stdout and stderr
	// awaited names the tools.call-tool the guest was in when its
	// deadline passed or its caller cancelled ("" if none): the Timeout
	// or Cancelled says it.
	awaited string
}

// nestKey marks a context as coming from a host call of p's guest: a call
// back into p from it does not wait for a busy instance (busy.Bound).
type nestKey struct{ p *Provider }

// KeepsDeadlines implements abi.DeadlineKeeper: the watchdog stops a guest
// at most watchGranularity after its deadline (instrumented modules trap in
// aios.tick, the others are closed), a new instance's start functions run
// under the call's deadline, and the host interfaces block only in host
// calls, which run under the caller's context. The WASI subset never
// sleeps (docs/components.md).
func (p *Provider) KeepsDeadlines() bool { return true }

// PoolStats implements host.PoolStats (the aios_provider_pool metric):
// the idle instances and those serving calls.
func (p *Provider) PoolStats() (idle, busy int) { return len(p.pool), p.bound.Busy() }

var _ abi.DeadlineKeeper = (*Provider)(nil)

// Call implements abi.Provider.
func (p *Provider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (_ any, err error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	t, ok := p.tools[call.Tool]
	if !ok {
		return nil, abi.Errorf(abi.NotFound, "component %s has no tool %q", p.reg.Provider.ID, call.Tool)
	}
	args, err := p.params(t, call.Params)
	if err != nil {
		return nil, err
	}
	if !p.beginCall() {
		return nil, abi.Errorf(abi.Unavailable, "component %s is closed", p.reg.Provider.ID)
	}
	defer p.endCall()
	// The guest runs under context.Background(); the watchdog enforces the
	// deadline and the caller's cancellation (watchdog.go).
	var dl int64
	if d, ok := ctx.Deadline(); ok {
		dl = d.UnixNano()
	}
	if !call.Deadline.IsZero() && (dl == 0 || call.Deadline.UnixNano() < dl) {
		dl = call.Deadline.UnixNano()
	}
	var dlTime time.Time
	if dl > 0 {
		dlTime = time.Unix(0, dl)
	}
	nv := ctx.Value(nestKey{p})
	chain, _ := nv.(*busy.Chain)
	free, overflow, err := p.bound.AcquireIn(ctx, dlTime, call.Depth > 0 && nv != nil, chain, p.reg.Provider.ID, call.Tool, p.poolKey)
	if err != nil {
		return nil, err
	}
	if !free {
		defer p.bound.ReleaseUnit(overflow) // after the instance is back in the pool (defers run last first)
	}
	wctx := context.Background()
	inst, err := p.get(ctx, dl)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, abi.Errorf(abi.Cancelled, "component %s: the caller cancelled while a new instance was starting", p.reg.Provider.ID)
		}
		if dl > 0 && time.Now().UnixNano() >= dl {
			return nil, abi.Errorf(abi.Timeout, "component %s: the deadline passed while a new instance was starting: %v", p.reg.Provider.ID, err)
		}
		return nil, abi.Errorf(abi.Unavailable, "component %s: new instance: %v", p.reg.Provider.ID, err)
	}
	st := &inst.cs // reused: no allocation per call
	*st = callState{ctx: ctx, wctx: wctx, env: env, out: GuestOutput{Gate: p.lines}}
	inst.state = st
	p.watch.enter(inst, dl, ctx)
	defer func() {
		if r := recover(); r != nil {
			inst.broken = true
			err = abi.Errorf(abi.ProviderCrashed, "tool %s: %v", call.Tool, r)
		}
		if st.out.Written() {
			st.out.Flush(st.ctx, st.env.Logger())
		}
		if p.watch.leave(inst) != 0 {
			inst.broken = true
		}
		inst.state = nil
		st.ctx, st.env, st.nested = nil, nil, nil // the caller's: not kept past the call
		p.put(inst)
	}()
	v, err := inst.invoke(wctx, t, args)
	if err != nil {
		return nil, err
	}
	return p.result(t, v, st)
}

func (p *Provider) params(t *tool, params any) ([]wit.Value, error) {
	if t.jsonTool {
		if params == nil {
			params = map[string]any{}
		}
		b, err := json.Marshal(abi.ForJSON(params)) // floats stay floats (abi.ForJSON)
		if err != nil {
			return nil, abi.Errorf(abi.InvalidParams, "params: %v", err)
		}
		return []wit.Value{string(b)}, nil
	}
	if params == nil {
		params = map[string]any{}
	}
	args, err := wit.FuncParamsFromJSON(t.witFn, params)
	if err != nil {
		return nil, abi.Errorf(abi.InvalidParams, "tool %s: %v", t.def.Name, err)
	}
	return args, nil
}

// result maps the lifted return value to the tool's result: a top-level
// result<T, E> gives T, or a ProviderError carrying E (a string E is the
// message; other E travel as Data with their JSON text as the message).
func (p *Provider) result(t *tool, v wit.Value, st *callState) (any, error) {
	if t.jsonTool {
		r := v.(wit.Result)
		if !r.IsErr {
			var out any
			if err := iwire.UnmarshalGuestJSON([]byte(r.Val.(string)), &out); err != nil {
				return nil, abi.Errorf(abi.InvalidResult, "tool %s returned invalid JSON: %v", t.def.Name, err)
			}
			return out, nil
		}
	}
	res, errData, failed, err := wit.FuncResultToJSON(t.witFn, v)
	if err != nil {
		return nil, abi.Errorf(abi.InvalidResult, "tool %s: %v", t.def.Name, err)
	}
	if !failed {
		return res, nil
	}
	return nil, ToolFailure(t.def.Name, t.witFn, errData, st.nested)
}

// ToolFailure is the error of tool f that returned the err side of its
// top-level result<T, E>, errData being E's JSON form (FuncResultToJSON),
// for both engines. A string E is the message (or, when it is an error
// string a host call handed the guest, that call's ToolError: nested).
// Any other E is the ToolError's Data, with its JSON text as the message,
// or the text itself when that JSON is a string (an enum's case, a char).
// An enum E was taken for a string E, its case the message and no Data,
// where docs/wit.md promises Data is E's JSON (TestEnumErrorData).
func ToolFailure(tool string, f *wit.Func, errData any, nested map[string]*abi.ToolError) *abi.ToolError {
	if errData == nil {
		return abi.Errorf(abi.ProviderError, "tool %s failed", tool)
	}
	s, isText := errData.(string)
	if f.Result.Err.Kind == wit.KindString {
		if te, ok := nested[s]; ok {
			return te
		}
		return &abi.ToolError{Code: abi.ProviderError, Message: s}
	}
	if !isText {
		b, _ := json.Marshal(errData)
		s = string(b)
	}
	return &abi.ToolError{Code: abi.ProviderError, Message: s, Data: errData}
}

// invoke runs the export: lower the arguments, call, lift the result, post-return.
func (inst *instance) invoke(ctx context.Context, t *tool, args []wit.Value) (wit.Value, error) {
	inst.ctxSlots = [2]uint32{}
	cx := &inst.cxs[t.idx]
	cx.Reset()
	flat, err := t.fn.LowerArgs(cx, args, inst.stack[:0])
	if err != nil {
		return nil, inst.fail(ctx, t, err, abi.InvalidParams)
	}
	stack := flat[:cap(flat)]
	if t.exp.fn != nil {
		inst.running = t.exp.fn.lift
	}
	err = inst.funcs[t.idx].CallWithStack(ctx, stack)
	inst.running = nil
	if err != nil {
		return nil, inst.fail(ctx, t, err, abi.ProviderCrashed)
	}
	res := stack[:t.nResults]
	v, err := t.fn.LiftResult(cx, res)
	if err != nil {
		return nil, inst.fail(ctx, t, err, abi.ProviderCrashed)
	}
	if post := inst.posts[t.idx]; post != nil {
		inst.noLeave++
		err := post.CallWithStack(ctx, res)
		inst.noLeave--
		if err != nil {
			return nil, inst.fail(ctx, t, fmt.Errorf("post-return: %w", err), abi.ProviderCrashed)
		}
	}
	return v, nil
}

func (inst *instance) fail(ctx context.Context, t *tool, err error, code abi.ErrorCode) error {
	st := inst.state
	if st != nil && st.hostErr != nil {
		inst.broken = true
		var te *abi.ToolError
		if errors.As(st.hostErr, &te) {
			return te
		}
		return abi.Errorf(abi.ProviderCrashed, "tool %s: %v", t.def.Name, st.hostErr)
	}
	while := ""
	if st != nil && st.awaited != "" {
		while = " while it awaited " + st.awaited
	}
	switch inst.killed.Load() {
	case killedTimeout:
		inst.broken = true
		return abi.Errorf(abi.Timeout, "tool %s: deadline passed%s; the component instance was stopped", t.def.Name, while)
	case killedCancelled:
		inst.broken = true
		return abi.Errorf(abi.Cancelled, "tool %s: cancelled%s", t.def.Name, while)
	}
	var ce *cabi.Error
	if errors.As(err, &ce) && !ce.Trap && code == abi.InvalidParams {
		return abi.Errorf(abi.InvalidParams, "tool %s: %v", t.def.Name, err)
	}
	inst.broken = true
	// A trap's first line says what happened; wazero's wasm stack trace
	// after it (dozens of lines of function indexes for a Go guest) is
	// not for the caller or the audit log (as the core-module runtime
	// and the wasmtime engine cut it).
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i > 0 {
		msg = msg[:i]
	}
	return abi.Errorf(abi.ProviderCrashed, "tool %s: %s", t.def.Name, msg)
}

// hostFunc is a host implementation of an imported function. inst gives
// the instance's resource handle table.
type hostFunc func(st *callState, inst *instance, args []wit.Value) (wit.Value, error)

// hostFunc adapts lowered import i to a wazero host function.
func (inst *instance) hostFunc(i int) api.GoModuleFunc {
	p := inst.p
	f := p.lowers[i]
	impl := p.impls[i]
	np, _ := f.CoreSignature(true)
	nparams := len(np)
	// Handles in the arguments must be live handles of their resource
	// (lift_borrow, lift_own): not for adapters, whose types hold none.
	var handles []int
	if p.plan.lowers[i].fn.lift == nil {
		for k, prm := range f.W.Params {
			if holdsHandles(prm.Type) {
				handles = append(handles, k)
			}
		}
	}
	return func(ctx context.Context, _ api.Module, stack []uint64) {
		st := inst.startState(ctx)
		if inst.noLeave > 0 {
			abortHost(st, fmt.Errorf("import %s called from inside cabi_realloc or a post-return function, which the Canonical ABI forbids", p.lowNames[i]))
		}
		cx := &inst.lowCx[i]
		if !inst.lowReady[i] {
			c, err := inst.context(p.plan.lowers[i].opts)
			if err != nil {
				abortHost(st, fmt.Errorf("import %s: %w", p.lowNames[i], err))
			}
			*cx = c
		}
		cx.Reset()
		args, err := f.LiftArgs(cx, stack[:nparams])
		if err != nil {
			abortHost(st, fmt.Errorf("import %s: %w", p.lowNames[i], err))
		}
		for _, k := range handles {
			if err := checkHandles(inst, f.W.Params[k].Type, args[k]); err != nil {
				abortHost(st, fmt.Errorf("import %s: %s: %w", p.lowNames[i], f.W.Params[k].Name, err))
			}
		}
		v, err := callImpl(impl, st, inst, args, p.lowNames[i], f)
		if err != nil {
			abortHost(st, err)
		}
		if _, err := f.LowerResult(cx, v, stack[:nparams], stack[:0]); err != nil {
			abortHost(st, fmt.Errorf("import %s: %w", p.lowNames[i], err))
		}
	}
}

// abortHost aborts the guest call from a host function with err, unless
// an error is already recorded: a host function that fails inside another
// one's cabi_realloc has the first, telling error.
func abortHost(st *callState, err error) {
	if st.hostErr == nil {
		st.hostErr = err
	}
	panic(errHostAbort)
}

// callImpl runs a host implementation. The implementations assume the
// types aios-host declares for the function; a component that imports it
// with other types (log(level: u32, message: u32)) would make one fail a
// type assertion: that becomes an error naming the import and the types
// the component declared, not a panic with the host's stack.
func callImpl(impl hostFunc, st *callState, inst *instance, args []wit.Value, name string, f *cabi.Func) (v wit.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("import %s: the component declares it as %s, which is not the signature aios-host implements (%v)", name, signature(f.W), r)
		}
	}()
	return impl(st, inst, args)
}

// signature is a short form of f's types for messages:
// func(level: u32, message: u32) -> string.
func signature(f *wit.Func) string {
	var sb strings.Builder
	sb.WriteString("func(")
	for i, p := range f.Params {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(p.Name + ": " + shortType(p.Type))
	}
	sb.WriteString(")")
	if f.Result != nil {
		sb.WriteString(" -> " + shortType(f.Result))
	}
	return sb.String()
}

func shortType(t *wit.Type) string {
	if t == nil {
		return "_"
	}
	if t.Name != "" {
		return t.Name
	}
	return t.Kind.String()
}

func errResult(s string) wit.Value { return wit.Result{IsErr: true, Val: s} }

// Bounds of the ToolErrors a call remembers from tools.call-tool
// (RememberNested).
const (
	maxNestedErrors     = 64
	maxNestedErrorBytes = 4 << 10
)

// RememberNested records te, handed to the guest as the error string msg
// of tools.call-tool, in m (made when nil) and returns m: a guest that
// returns msg unchanged as its own error gives its caller te (both
// engines). m keeps at most 64 messages of at most 4 KiB, the latest
// always: a guest calling a tool in a loop with a different long name
// each time (the name is in the NotFound message) made the host keep
// every message, 392 MiB after 1.5 s of 10 KB names, and, in a pooled
// instance, after the call too.
func RememberNested(m map[string]*abi.ToolError, msg string, te *abi.ToolError) map[string]*abi.ToolError {
	if len(msg) > maxNestedErrorBytes {
		return m
	}
	if m == nil || len(m) >= maxNestedErrors {
		m = map[string]*abi.ToolError{}
	}
	m[msg] = te
	return m
}

// NoEnv is the error of a host call (what) during a call made with a nil
// abi.Env, as the core-module, JS and Python runtimes say it; both
// engines remember it (hostError) so that a guest passing it on fails
// with its code.
func NoEnv(what string) error {
	return abi.Errorf(abi.Unavailable, "%s: no host services for this call (the provider was called with a nil abi.Env)", what)
}

// hostError is the error string handed to the guest for a host call's
// failure (spaces.read, spaces.write, tools.call-tool), remembered so that
// the guest returning it unchanged as its own error gives its caller the
// ToolError, code and all: a spaces.read NotFound passed on (a guest's
// spaces::read(id)?) reached the caller as ProviderError "NotFound: …",
// where JS, Python and Go guests pass the code on, and call-tool's did.
func (st *callState) hostError(err error) string { return RememberHostError(&st.nested, err) }

// RememberHostError is the error string handed to a guest for a host
// call's failure err, remembered in *m (RememberNested) for both engines.
func RememberHostError(m *map[string]*abi.ToolError, err error) string {
	te := abi.AsToolError(err, abi.ProviderError)
	msg := te.Error()
	*m = RememberNested(*m, msg, te)
	return msg
}

// sdkFuncs are the aios:sdk functions, by version-less interface name and
// function name. It is read-only.
var sdkFuncs = map[string]hostFunc{
	"aios:sdk/spaces#read": func(st *callState, inst *instance, a []wit.Value) (wit.Value, error) {
		if st.env == nil {
			return errResult(st.hostError(NoEnv("spaces.read"))), nil
		}
		obj, err := ReadObject(st.ctx, st.env, a[0].(string), inst.p.memBytes)
		if err != nil {
			return errResult(st.hostError(err)), nil
		}
		return wit.Result{Val: obj.Data}, nil
	},
	"aios:sdk/spaces#write": func(st *callState, _ *instance, a []wit.Value) (wit.Value, error) {
		if st.env == nil {
			return errResult(st.hostError(NoEnv("spaces.write"))), nil
		}
		data, _ := a[1].([]byte)
		obj, err := st.env.SpaceWrite(st.ctx, a[0].(string), data)
		if err != nil {
			return errResult(st.hostError(err)), nil
		}
		return wit.Result{Val: obj.ID}, nil
	},
	"aios:sdk/tools#call-tool": func(st *callState, inst *instance, a []wit.Value) (wit.Value, error) {
		if st.env == nil {
			return errResult(st.hostError(NoEnv("tools.call-tool"))), nil
		}
		var params any
		if err := iwire.UnmarshalGuestJSON([]byte(a[1].(string)), &params); err != nil {
			return errResult("call-tool: params-json: " + err.Error()), nil
		}
		res, err := st.env.CallTool(context.WithValue(st.ctx, nestKey{inst.p}, busy.NewChain()), a[0].(string), "", params)
		if inst.killed.Load() != 0 || st.ctx.Err() != nil {
			st.awaited = fmt.Sprintf("tools.call-tool(%.64q)", a[0].(string))
		}
		if err != nil {
			return errResult(st.hostError(err)), nil
		}
		b, err := json.Marshal(abi.ForJSON(res))
		if err != nil {
			return errResult(err.Error()), nil
		}
		return wit.Result{Val: string(b)}, nil
	},
	"aios:sdk/log#log": func(st *callState, _ *instance, a []wit.Value) (wit.Value, error) {
		if st.env == nil {
			return nil, nil
		}
		msg := a[1].(string)
		levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError}
		GuestLog(st.ctx, st.env.Logger(), st.out.Gate, &st.logged, levels[a[0].(wit.Enum)], msg)
		return nil, nil
	},
}

// startState is the call state host functions see: the call's, or, for
// a start function (no call yet), one kept in inst.state so that a host
// function's failure reaches the instantiation's error (it was dropped,
// and the load failed with wazero's "host function aborted the call").
func (inst *instance) startState(ctx context.Context) *callState {
	if inst.state == nil {
		inst.state = &callState{ctx: ctx, wctx: ctx}
	}
	return inst.state
}

// builtinFunc adapts a canon built-in to a wazero host function.
func (inst *instance) builtinFunc(name string, slot uint32) api.GoModuleFunc {
	return func(ctx context.Context, _ api.Module, stack []uint64) {
		if err := inst.builtin(name, slot, stack); err != nil {
			inst.startState(ctx).hostErr = err
			panic(errHostAbort)
		}
	}
}

// liftedFn is a lifted function of this instance, resolved for calls from
// another component instance inside the same component.
type liftedFn struct {
	f, post api.Function
	cx      cabi.Context
	stack   []uint64
	// active: a call of f is running. A second one (a component that
	// lowers its own export, or a cycle of adapters) would reenter f's
	// wazero call engine, which is not reentrant, and could recurse until
	// the host's stack overflows (the process died); it is refused, as
	// the Canonical ABI refuses reentering a component instance.
	active bool
}

// adapterFunc calls fv (lifted in one component instance) from another:
// the arguments were lifted from the caller's memory; they are lowered
// into the callee's, and the result comes back the same way.
func adapterFunc(fv *funcVal, f *cabi.Func) hostFunc {
	return func(st *callState, inst *instance, args []wit.Value) (wit.Value, error) {
		lf, err := inst.resolveLifted(fv, f)
		if err != nil {
			return nil, err
		}
		if lf.active || (inst.running != nil && fv.lift != nil && *fv.lift == *inst.running) {
			name := fv.wf.Name
			if name == "" {
				name = "a lifted function"
			}
			return nil, fmt.Errorf("%s called while a call of it is running (a component instance may not be reentered)", name)
		}
		lf.active = true
		defer func() { lf.active = false }()
		lf.cx.Reset()
		flat, err := f.LowerArgs(&lf.cx, args, lf.stack[:0])
		if err != nil {
			return nil, err
		}
		stack := flat[:cap(flat)]
		ctx := context.Background()
		if st != nil && st.wctx != nil {
			ctx = st.wctx
		}
		if err := lf.f.CallWithStack(ctx, stack); err != nil {
			return nil, fmt.Errorf("%s: %w", fv.wf.Name, err)
		}
		_, rs := f.CoreSignature(false)
		v, err := f.LiftResult(&lf.cx, stack[:len(rs)])
		if err != nil {
			return nil, err
		}
		if lf.post != nil {
			inst.noLeave++
			err := lf.post.CallWithStack(ctx, stack[:len(rs)])
			inst.noLeave--
			if err != nil {
				return nil, fmt.Errorf("%s: post-return: %w", fv.wf.Name, err)
			}
		}
		return v, nil
	}
}

func (inst *instance) resolveLifted(fv *funcVal, cf *cabi.Func) (*liftedFn, error) {
	if lf, ok := inst.lifted[fv]; ok {
		return lf, nil
	}
	f, err := inst.coreFunc(fv.lift, "core function")
	if err != nil {
		return nil, fmt.Errorf("function %s: %w", fv.wf.Name, err)
	}
	if f == nil {
		return nil, fmt.Errorf("function %s is not available yet", fv.wf.Name)
	}
	post, err := inst.coreFunc(fv.opts.postReturn, "post-return")
	if err != nil {
		return nil, err
	}
	ps, rs := cf.CoreSignature(false)
	if err := checkCoreSig(f, "core function", ps, rs); err != nil {
		return nil, fmt.Errorf("function %s: %w", fv.wf.Name, err)
	}
	if err := checkCoreSig(post, "post-return", rs, nil); err != nil {
		return nil, fmt.Errorf("function %s: %w", fv.wf.Name, err)
	}
	cx, err := inst.context(fv.opts)
	if err != nil {
		return nil, err
	}
	n := max(len(f.Definition().ParamTypes()), len(f.Definition().ResultTypes()), 1)
	lf := &liftedFn{f: f, post: post, cx: cx, stack: make([]uint64, 0, n)}
	if cx.Mem == nil && fv.opts.memory != nil {
		return lf, nil // a start function is running: do not keep a partial context
	}
	if inst.lifted == nil {
		inst.lifted = map[*funcVal]*liftedFn{}
	}
	inst.lifted[fv] = lf
	return lf, nil
}
