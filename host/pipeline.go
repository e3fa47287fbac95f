package host

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/editdist"
	"github.com/aios-host/aios-host/internal/ratelimit"
	"github.com/aios-host/aios-host/registry"
)

// CallInfo tells a caller what served its call.
type CallInfo struct {
	CallID   string
	Provider string
	Runtime  string
	Tool     string
	// Version is the exact version that served the call ("" when the
	// lookup failed).
	Version string
	// Deprecation is non-nil when that version is deprecated: it is still
	// served, and the caller should move on (the note is also logged once
	// per tool version and recorded in the audit entry's error field).
	Deprecation *abi.Deprecation
	Latency     time.Duration
}

// frame is the per-call state. It is also the abi.Env handed to the
// provider, and its ctx is the provider's context. One allocation per call
// holds all three. Frames are deliberately not pooled: a runtime may keep
// its Env or context after the call (an un-awaited promise, a watcher
// goroutine); a recycled frame would then act with another call's caller
// and grants. A frame that has ended refuses every Env service instead.
type frame struct {
	h      *Host
	call   abi.ToolCall // the call as the provider sees it
	entry  *registry.Entry
	caller string
	grants abi.Grants // the caller's effective grants
	ctx    callCtx    // the provider's context
	ended  atomic.Bool
	// maxPerm is the highest tool permission level this call may reach
	// (config.PermissionRank): the agent's max_permission, inherited by
	// nested calls.
	maxPerm int8
	// origin is who, behind the agent, asked for the call (WithOrigin),
	// inherited by nested calls; nil for calls from within the process.
	origin *Origin
	idBuf  [32]byte // the bytes of the call id (see callIDs.frameID)
	// parent is the frame of the call that made this nested one (nil at
	// top level and once the call has ended): a refusal names who on
	// the way lacked what this call's grants lack.
	parent atomic.Pointer[frame]
	// served is the version that served the call when its provider
	// handed it to another (ServedVersion), else nil.
	served atomic.Pointer[string]
	// logFn is a nested call's CallLogFunc, its parent's (callLog).
	logFn CallLogFunc
	// reentered is, for a call made through Host.Call under another
	// call's context (a native handler calling the host it holds), that
	// call's frame while this one runs: its depth counts from there and
	// a DepthExceeded names the chain through it (chainText). Unlike
	// parent it holds no grants of this call: its caller is an agent.
	reentered atomic.Pointer[frame]
	// denied is the first host service refused to this call for want of
	// a capability (its CapabilityDenied message), deniedN how many were:
	// the call's audit record says so, as a tool that catches the refusal
	// and answers otherwise left no trace of what it tried (refused).
	denied  atomic.Pointer[string]
	deniedN atomic.Int32
}

// Origin says who, behind the agent, asked for a call: a server that maps
// a client's credential to an agent puts it in the call's context
// (WithOrigin), and every audit record of the call and of its nested calls
// carries it.
type Origin struct {
	// Principal is the credential that was mapped to the agent:
	// "uid:1001" (a socket peer), "token:NAME" (a configured bearer
	// token), "oauth:SUBJECT" (an OAuth access token's subject).
	Principal string
	// Session is the client session: an MCP session id.
	Session string
	// Remote is the network address the request came from: an HTTP
	// request's TCP peer (IP:port; behind a proxy, the proxy's).
	Remote string
}

type originKey struct{}

// WithOrigin returns ctx carrying o for the calls made with it.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	if o == (Origin{}) {
		return ctx
	}
	return context.WithValue(ctx, originKey{}, &o)
}

// OriginOf returns the Origin of ctx (WithOrigin), or the zero Origin.
func OriginOf(ctx context.Context) Origin {
	if o, _ := ctx.Value(originKey{}).(*Origin); o != nil {
		return *o
	}
	return Origin{}
}

// Call runs call through the whole pipeline and returns the tool's result
// in canonical form. A non-nil error is always a *abi.ToolError.
// call.Caller must name an agent of the config. call itself is not
// modified, but maps and slices inside call.Params that are not in
// canonical form (see abi.Normalize) are converted in place, and the params
// and the result are handed to the audit log, which hashes them after Call
// returns: the caller must not modify either afterwards.
func (h *Host) Call(ctx context.Context, call *abi.ToolCall) (any, error) {
	v, _, err := h.CallWithInfo(ctx, call)
	return v, err
}

// CallWithInfo is Call that also says what served the call (provider,
// exact version, deprecation).
func (h *Host) CallWithInfo(ctx context.Context, call *abi.ToolCall) (any, CallInfo, error) {
	if err := h.unmade(); err != nil {
		return nil, CallInfo{}, err
	}
	if call == nil {
		return nil, CallInfo{}, &abi.ToolError{Code: abi.InvalidRequest, Message: "nil tool call"}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	f := &frame{h: h, caller: call.Caller}
	f.origin, _ = ctx.Value(originKey{}).(*Origin)
	if pc, _ := ctx.Value(callCtxKey{}).(*callCtx); pc != nil && pc.frame != nil && pc.frame.h == h && !pc.frame.ended.Load() {
		// A call made under a running call's context (a native handler
		// calling the Host it holds) is nested in it: as a depth of 0
		// it passed limits.max_call_depth at every level, a tool
		// calling itself that way recursing without end. It counts
		// from its caller's depth and is linked to it in the audit log
		// (of this host: another Host's call ids are not of its log).
		pf := pc.frame
		nested := *call
		nested.Depth = max(nested.Depth, pf.call.Depth+1)
		if nested.ParentID == "" {
			nested.ParentID = pf.call.ID
		}
		if nested.Deadline.IsZero() {
			// Its caller's deadline, as Env.CallTool's nested calls
			// carry it, not limits.default_deadline (a call given
			// minutes had these stopped at the default).
			nested.Deadline = pf.call.Deadline
		}
		call = &nested
		f.reentered.Store(pf)
	}
	var lim *ratelimit.Limiter
	var deny *abi.ToolError
	if ag := h.pol.agents[call.Caller]; ag != nil {
		f.grants, lim, f.maxPerm = ag.grants, ag.lim, ag.maxPerm
	} else {
		deny = h.unknownCaller(call.Caller)
	}
	return h.dispatch(ctx, f, call, lim, deny, time.Time{})
}

// Refuse records call as refused by a front end's own limit (e.g. MCP's
// mcp.http.max_calls_per_session) without running it: the call goes
// through the pipeline's first steps (a closed host, an unknown tool or
// a nested depth still answer as for Call) and is then refused with why,
// before the capability check and the rate limits — it spends no token
// and its provider never runs —, with its audit record and its call
// observers' stats like any refused call. The error returned is a
// *abi.ToolError (why, unless an earlier step refused the call).
func (h *Host) Refuse(ctx context.Context, call *abi.ToolCall, why *abi.ToolError) (CallInfo, error) {
	if err := h.unmade(); err != nil {
		return CallInfo{}, err
	}
	if call == nil {
		return CallInfo{}, &abi.ToolError{Code: abi.InvalidRequest, Message: "nil tool call"}
	}
	if why == nil {
		why = &abi.ToolError{Code: abi.Internal, Message: "call refused (no reason given)"}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	f := &frame{h: h, caller: call.Caller}
	f.origin, _ = ctx.Value(originKey{}).(*Origin)
	_, info, err := h.dispatch(ctx, f, call, nil, why, time.Time{})
	return info, err
}

func (h *Host) unknownCaller(name string) *abi.ToolError {
	if name == "" {
		return &abi.ToolError{Code: abi.CapabilityDenied, Message: "the call names no caller; set caller to an agent of the config (" + joinNames(h.pol.agentNames) + ")"}
	}
	return &abi.ToolError{Code: abi.CapabilityDenied, Message: "unknown caller " + strconv.Quote(name) + ": not an agent of the config (agents: " + joinNames(h.pol.agentNames) + ")"}
}

func joinNames(names []string) string {
	if len(names) == 0 {
		return "none configured"
	}
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// dispatch is the pipeline. f holds the caller and its grants; callerLim
// is the caller's rate limiter; deny, when set, refuses the call at the
// capability step (unknown caller); parentDeadline bounds nested calls.
// dispatch ends f.
func (h *Host) dispatch(ctx context.Context, f *frame, in *abi.ToolCall, callerLim *ratelimit.Limiter, deny *abi.ToolError, parentDeadline time.Time) (result any, info CallInfo, err error) {
	// Counted before h.closed is read (Close waits for it: drainCalls).
	h.calls.Add(1)
	defer h.calls.Add(-1)
	start := time.Now()
	var terr *abi.ToolError
	params := in.Params
	var entry *registry.Entry
	var deadline time.Time
	deadlineBy := deadlineCaller // which setting set the deadline
	unaudited := false

	info.Tool = in.Tool
	info.CallID = in.ID
	if info.CallID == "" {
		info.CallID = h.ids.frameID(f)
	}

	// 1. lookup
	if h.closed.Load() {
		terr = &abi.ToolError{Code: abi.Unavailable, Message: "host is closed"}
		goto done
	}
	// No call runs without its record: while the audit log cannot be
	// written (a full disk), calls are refused, unrecorded.
	if aerr := h.audit.Failing(); aerr != nil {
		terr = &abi.ToolError{Code: abi.Unavailable, Message: "calls are refused until the audit log can be written again: " + aerr.Error()}
		unaudited = true
		goto done
	}
	entry, err = h.reg.Resolve(in.Tool, in.Version)
	if err != nil {
		terr = abi.AsToolError(err, abi.NotFound)
		if hint := h.hints.Load(); hint != nil && terr.Code == abi.NotFound && h.reg.Versions(in.Tool) == nil {
			if s := (*hint)(in.Tool); s != "" {
				terr.Message += "; " + s
			}
		}
		goto done
	}
	f.entry = entry
	info.Provider = entry.Provider.Info.ID
	info.Runtime = entry.Provider.Info.Runtime
	info.Version = entry.Def.Version
	if entry.Def.Deprecated || entry.Def.Deprecation != nil {
		info.Deprecation = h.deprecation(entry)
	}

	// 2. depth and capabilities
	if in.Depth < 0 {
		// A depth counts the calls above this one: a negative one
		// passed the limit below and gave every nested call under it
		// as many more levels (depth -50 under a limit of 3 ran 54
		// calls deep). The front ends refuse it; Host.Call's callers
		// in Go are refused here.
		terr = &abi.ToolError{Code: abi.InvalidRequest, Message: "call of " + in.Tool + " gives depth " + strconv.Itoa(in.Depth) +
			"; a depth counts the calls above this one, 0 for a call from an agent"}
		goto done
	}
	if in.Depth > h.pol.maxDepth {
		terr = &abi.ToolError{Code: abi.DepthExceeded, Message: "call of " + in.Tool + " is nested " + strconv.Itoa(in.Depth) + " deep; the limit is " + strconv.Itoa(h.pol.maxDepth) + " (limits.max_call_depth)" + f.chainText(entry.Def.Name, in.Depth)}
		goto done
	}
	if deny != nil {
		terr = deny
		goto done
	}
	// Nested: one of this host's Env.CallTool calls (always with its
	// parent's deadline), not a client that gives its own depth.
	if terr = checkCaps(f.caller, f.grants, entry, !parentDeadline.IsZero()); terr != nil {
		if !parentDeadline.IsZero() {
			terr = h.nestedDenied(f, terr)
		}
		goto done
	}
	if terr = checkPermission(f.caller, f.maxPerm, entry, nestedFrame(f, parentDeadline)); terr != nil {
		goto done
	}

	// The call's deadline; a call that can no longer run (its caller
	// cancelled, its deadline passed) is refused before the rate limits:
	// it spends no token.
	deadline = in.Deadline
	if deadline.IsZero() && !parentDeadline.IsZero() {
		// A nested call carries its parent's deadline: the default is
		// for a call that carries none. A tool given minutes saw its
		// nested calls stopped at limits.default_deadline, said to be
		// "as its caller gave none" (a shorter one comes in ctx).
		deadline = parentDeadline
	} else if deadline.IsZero() {
		deadline = start.Add(h.pol.deadline)
		deadlineBy = deadlineDefault
	} else if limit := start.Add(h.pol.maxDeadline); deadline.After(limit) {
		deadline = limit // limits.max_deadline
		deadlineBy = deadlineCapped
	}
	if !parentDeadline.IsZero() && parentDeadline.Before(deadline) {
		deadline, deadlineBy = parentDeadline, deadlineCaller
	}
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline, deadlineBy = d, deadlineCaller
	}
	if err := ctx.Err(); err != nil {
		// Say which call and that it never ran: the context's own text
		// ("context canceled") names neither.
		if terr = abi.AsToolError(err, abi.Cancelled); terr.Code == abi.Timeout {
			terr = &abi.ToolError{Code: abi.Timeout, Message: "deadline of the call of " + in.Tool + " (its caller's context) passed before it started"}
		} else {
			terr = &abi.ToolError{Code: terr.Code, Message: "call of " + in.Tool + " was cancelled before it started: " + terr.Message}
		}
		goto done
	}
	if !start.Before(deadline) {
		terr = &abi.ToolError{Code: abi.Timeout, Message: "deadline of the call of " + in.Tool + " passed before it started"}
		goto done
	}

	// 3. rate limits: caller, tool, global. Judged at the call's start;
	// a call refused is judged again at the time of the check, which a
	// call reaching its check late (not scheduled for a while, a GC pause)
	// is older than the calls let through meanwhile: at its start the
	// limiter reads a bucket drawn on in the future, and refused a call
	// of a full bucket (TestRateJudgedAtTheCheck). Only a refusal reads
	// the clock again: a clock read costs 100-400 ns on a VM whose clock
	// source is kvm-clock (docs/performance.md, thirty-fourth pass).
	if terr = h.checkRate(start, callerLim, f.caller, entry); terr != nil {
		if terr.Code != abi.RateLimited {
			goto done
		}
		if now := rateNow(); now.After(start) {
			terr = h.checkRate(now, callerLim, f.caller, entry)
		}
		if terr != nil {
			goto done
		}
	}

	// 4. params: canonical form, size, schema
	if terr = h.checkParams(&params, entry); terr != nil {
		goto done
	}

	// 5. provider call under the deadline
	{
		f.call = abi.ToolCall{ID: info.CallID, ParentID: in.ParentID, Caller: f.caller, Tool: entry.Def.Name,
			Version: entry.Def.Version, Params: params, Deadline: deadline, Depth: in.Depth}
		f.ctx.parent, f.ctx.deadline, f.ctx.frame = ctx, deadline, f
		if entry.Provider.Info.Runtime == abi.RuntimeNative || keepsDeadlines(entry.Provider.Impl) {
			result, err = callProvider(entry.Provider.Impl, &f.ctx, &f.call, f)
		} else {
			result, err = CallWatched(entry.Provider.Impl, &f.ctx, &f.call, f, deadline)
		}
		if v := f.served.Load(); v != nil {
			info.Version = *v
		}
		// time.Since reads only the monotonic clock (cheaper than
		// time.Now, which reads the wall clock too).
		elapsed := time.Since(start)
		end := start.Add(elapsed)
		late := end.After(deadline)
		switch {
		case err != nil:
			var nilTE *abi.ToolError
			terr = abi.AsToolError(err, abi.ProviderError)
			if errors.As(err, &nilTE) && nilTE == nil { // a nil *ToolError inside a non-nil error
				terr = &abi.ToolError{Code: abi.ProviderError, Message: "provider " + entry.Provider.Info.ID + " failed " + entry.Def.Name + " with a nil *ToolError"}
			} else if !terr.Code.Known() {
				// Callers switch on a closed set of codes (abi.KnownCodes):
				// a provider's own code, from any runtime, is a
				// ProviderError that names it.
				terr = &abi.ToolError{Code: abi.ProviderError, Data: terr.Data,
					Message: fmt.Sprintf("%s (provider %s's error code %q is not one of the ABI's)", terr.Message, entry.Provider.Info.ID, terr.Code)}
			} else if strings.TrimSpace(terr.Message) == "" {
				// A bare code (the seed's `ToolError::InvalidParams`, a
				// Python or JS ToolError(code)): "InvalidParams: " alone
				// named neither the tool nor who failed.
				terr = &abi.ToolError{Code: terr.Code, Data: terr.Data,
					Message: "tool " + entry.Def.Name + " of provider " + entry.Provider.Info.ID + " failed with " + string(terr.Code) + " and gave no message"}
			}
			terr = h.boundError(canonicalErrorData(terr, h.pol.maxResult))
			if late && terr.Code != abi.ProviderCrashed && terr.Code != abi.Timeout {
				terr = h.timeoutError(entry, deadline, start)
			}
		case late:
			terr = h.timeoutError(entry, deadline, start)
		default:
			terr = h.checkResult(&result, entry)
		}
		if terr != nil && terr.Code == abi.Timeout && deadlineBy != deadlineCaller && !end.Before(deadline) {
			terr = h.deadlineSetting(terr, deadlineBy, in.Deadline.Sub(start))
		}
		info.Latency = elapsed
	}

done:
	if info.Latency == 0 {
		info.Latency = time.Since(start)
	}
	if terr != nil {
		result = nil
		if terr.Code == abi.Cancelled {
			terr = withCancelCause(ctx, terr)
		}
	}
	if h.audit != nil && !unaudited {
		h.logAudit(start, in, f, entry, &info, params, result, terr)
	}
	if obs := h.obs.list.Load(); obs != nil {
		st := CallStats{CallID: info.CallID, ParentID: in.ParentID, Caller: f.caller, Tool: info.Tool,
			Version: info.Version, Runtime: info.Runtime, Provider: info.Provider, Latency: info.Latency,
			Nested: !parentDeadline.IsZero(), Depth: in.Depth}
		if entry != nil {
			st.Tool = entry.Def.Name
		}
		if terr != nil {
			st.Code = terr.Code
		}
		h.notify(*obs, st)
	}
	f.ended.Store(true)
	if f.parent.Load() != nil {
		f.parent.Store(nil) // a frame kept after its call keeps no other
	}
	if f.reentered.Load() != nil {
		f.reentered.Store(nil)
	}
	f.ctx.release()
	if terr != nil {
		return nil, info, terr
	}
	return result, info, nil
}

// ErrShuttingDown is the cause a server gives the contexts of the calls it
// cancels when the host shuts down (context.WithCancelCause): their
// Cancelled answers and records say so.
var ErrShuttingDown = errors.New("the host is shutting down")

// withCancelCause says why a Cancelled call was cancelled when its context
// carries a cause of its own (ErrShuttingDown): the provider's message
// ("context canceled", a runtime's "cancelled by its caller") cannot tell
// a client that gave up from a host that is going away. terr is not
// changed (it may be the provider's).
func withCancelCause(ctx context.Context, terr *abi.ToolError) *abi.ToolError {
	cause := context.Cause(ctx)
	if cause == nil || cause == ctx.Err() || errors.Is(cause, context.Canceled) {
		return terr
	}
	if strings.HasPrefix(terr.Message, cause.Error()) {
		// A nested call's Cancelled, handed up by the tool that made
		// it, says why already: each call of a chain added it again
		// ("the host is shutting down (the host is shutting down (…))").
		return terr
	}
	out := *terr
	out.Message = cause.Error() + " (" + terr.Message + ")"
	return &out
}

// callProvider calls p, turning a panic that escapes the runtime into
// ProviderCrashed (native providers recover their own; this is the
// safety net for every other runtime).
func callProvider(p abi.Provider, ctx context.Context, call *abi.ToolCall, env abi.Env) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res = nil
			err = &abi.ToolError{Code: abi.ProviderCrashed, Message: "provider panicked serving " + call.Tool + ": " + fmt.Sprint(r),
				Data: map[string]any{"panic": fmt.Sprint(r)}}
		}
	}()
	return p.Call(ctx, call, env)
}

// abandonGrace is how long after its deadline the host waits for a
// non-native provider to return before it abandons the call.
const abandonGrace = time.Second

type outcome struct {
	res any
	err error
}

// keepsDeadlines reports whether p promises to return by the call's
// deadline on its own (abi.DeadlineKeeper: its runtime interrupts the
// guest, e.g. runtimes/wasm, component, runtimes/js). Such a provider is
// called on the caller's goroutine like a native one: the goroutine, channel
// and timer of CallWatched cost more than a whole call of a fast guest
// (and a fresh goroutine grows its stack again on every call).
func keepsDeadlines(p abi.Provider) bool {
	k, ok := p.(abi.DeadlineKeeper)
	return ok && k.KeepsDeadlines()
}

// CallWatched serves a call of a non-native provider on its own goroutine
// and stops waiting abandonGrace after the deadline. Runtimes interrupt
// their guests at call.Deadline themselves; this is the net for a runtime
// or worker that does not, so that no provider can hold a caller past its
// deadline. An abandoned call keeps running until the provider returns;
// its frame has ended by then, so it can use no host service, and its
// result is dropped. A call whose caller cancels is abandoned at once
// (Cancelled). (Native tools and deadline keepers run in the caller's
// goroutine instead: a goroutine and a timer per call would cost more than
// the whole native pipeline; native handlers must honour ctx.)
//
// Exported for wrappers that hand a call on to a provider that does not
// keep deadlines when the host did not watch it (discovery's forwarding
// across a hot reload).
func CallWatched(p abi.Provider, ctx context.Context, call *abi.ToolCall, env abi.Env, deadline time.Time) (any, error) {
	ch := make(chan outcome, 1)
	go func() {
		res, err := callProvider(p, ctx, call, env)
		ch <- outcome{res, err}
	}()
	t := time.NewTimer(time.Until(deadline) + abandonGrace)
	defer t.Stop()
	// The caller's own context: a callCtx's Done would make a timer of
	// its deadline, which t covers.
	var cancelled <-chan struct{}
	if c, ok := ctx.(*callCtx); ok {
		cancelled = c.parent.Done()
	} else {
		cancelled = ctx.Done()
	}
	for {
		select {
		case o := <-ch:
			return o.res, o.err
		case <-cancelled:
			if errors.Is(ctx.Err(), context.DeadlineExceeded) && !time.Now().Before(deadline) {
				// The deadline, which the caller's context carries
				// too (a nested call's is its parent's): the provider
				// gets its grace, as at top level, to say why it
				// stopped (its runtime's Timeout naming what it
				// awaited was lost for "the caller's deadline passed",
				// the call abandoned at the very deadline).
				cancelled = nil
				continue
			}
			code, what := abi.Cancelled, "the caller cancelled"
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				code, what = abi.Timeout, "the caller's deadline passed"
			}
			return nil, &abi.ToolError{Code: code, Message: what + " while the provider had not returned from " + call.Tool + "; the call was abandoned",
				Data: map[string]any{"abandoned": true}}
		case <-t.C:
			return nil, &abi.ToolError{Code: abi.Timeout, Message: "provider did not return from " + call.Tool + " within " +
				abandonGrace.String() + " after its deadline; the call was abandoned",
				Data: map[string]any{"abandoned": true}}
		}
	}
}

// Which setting set a call's deadline: the caller (its own deadline, its
// context's or the calling call's), limits.default_deadline (the caller
// gave none) or limits.max_deadline (it cut a longer one).
const (
	deadlineCaller = iota
	deadlineDefault
	deadlineCapped
)

// deadlineSetting adds to the Timeout te of a call that ran out of a
// deadline the config set (by: deadlineDefault, deadlineCapped) which
// setting it was and its value; asked is the time the caller asked for
// (deadlineCapped). "did not finish within its deadline" or "context
// deadline exceeded" alone named neither: a caller that asked for an hour
// and was cut to limits.max_deadline could not tell why (found by p141).
// te itself is not changed (a provider may return one ToolError twice).
func (h *Host) deadlineSetting(te *abi.ToolError, by int, asked time.Duration) *abi.ToolError {
	out := *te
	if by == deadlineCapped {
		out.Message += " (its deadline: limits.max_deadline, " + h.pol.maxDeadline.String() + ", which cut the " +
			asked.Round(time.Millisecond).String() + " its caller asked for)"
	} else {
		out.Message += " (its deadline: limits.default_deadline, " + h.pol.deadline.String() + ", as its caller gave none)"
	}
	return &out
}

func (h *Host) timeoutError(e *registry.Entry, deadline, start time.Time) *abi.ToolError {
	return &abi.ToolError{Code: abi.Timeout, Message: "tool " + e.Def.Name + "@" + e.Def.Version + " of provider " + e.Provider.Info.ID +
		" did not finish within its deadline of " + deadline.Sub(start).Round(time.Millisecond).String()}
}

// checkCaps is the first of the three checks: the caller's grants cover
// CallTool(<tool>) and every capability the tool requires. nested says
// the caller is a provider making a nested call (its grants are then the
// intersection of its own caller's and its own, which the message shows).
func checkCaps(caller string, grants abi.Grants, e *registry.Entry, nested bool) *abi.ToolError {
	req := abi.Capability{Kind: abi.CapCallTool, Arg: e.Def.Name, HasArg: true}
	what := ""
	if !grants.Allows(req) {
		what = "lacks " + req.String()
	} else if c, miss := grants.Missing(e.Caps); miss {
		req = c
		what = "lacks " + c.String() + ", which tool " + e.Def.Name + " requires"
		if why := config.UnmatchableArg(c); why != "" {
			// The tool's fault, not the caller's: no grant of the
			// config can name it (ReadSpace(Docs)), only a wildcard.
			what += " (its capability_required names what no grant names but a wildcard such as " + c.Kind + "(*): " + why +
				"; the tool's author should fix it)"
		}
	} else {
		return nil
	}
	msg := "caller " + strconv.Quote(caller) + " " + what
	if nested {
		msg += " (a nested call holds only what both its caller and its provider hold: " + grantList(grants) + ")"
	}
	return &abi.ToolError{Code: abi.CapabilityDenied, Message: msg, Data: map[string]any{"missing": req.String(), "caller": caller}}
}

// nestedDenied adds to the CapabilityDenied of nested call f why its
// grants lack the capability and what to do (f.whyLacks): "caller
// local.relay lacks CallTool(x)" alone did not say that the fix is in the
// provider's own capabilities, nor that the agent behind it lacked it.
func (h *Host) nestedDenied(f *frame, te *abi.ToolError) *abi.ToolError {
	data, _ := te.Data.(map[string]any)
	missing, _ := data["missing"].(string)
	req, err := abi.ParseCapability(missing)
	if err != nil {
		return te
	}
	if why := f.whyLacks(req); why != "" {
		return &abi.ToolError{Code: te.Code, Message: te.Message + "; " + why, Data: te.Data}
	}
	return te
}

// permissionNames are the permission levels by config.PermissionRank.
var permissionNames = [...]string{abi.PermissionPublic, abi.PermissionLow, abi.PermissionMedium, abi.PermissionHigh, abi.PermissionCritical}

// nestedFrame is f when it is a nested call (one with its parent's
// deadline), else nil.
func nestedFrame(f *frame, parentDeadline time.Time) *frame {
	if parentDeadline.IsZero() {
		return nil
	}
	return f
}

// checkPermission is the per-tool policy's permission gate (part of check
// 3): the tool's permission level must not exceed the caller's ceiling
// (agents.<name>.max_permission; a nested call, nested not nil, inherits
// the ceiling of the agent that started it).
func checkPermission(caller string, maxPerm int8, e *registry.Entry, nested *frame) *abi.ToolError {
	level := e.Def.PermissionLevel
	rank, ok := config.PermissionRank(level)
	if !ok {
		level, rank = registry.DefaultPermission, 2
	}
	if rank <= int(maxPerm) {
		return nil
	}
	max := permissionNames[maxPerm]
	msg := "tool " + e.Def.Name + "@" + e.Def.Version + " has permission level " + level + "; caller " + strconv.Quote(caller) +
		" may call tools up to level " + max
	if nested != nil {
		// Which agent's setting that is: "the agent that started it"
		// alone left the operator to find it (the caller is the
		// provider making the call).
		if agent := nested.chainAgent(); agent != "" {
			msg += " (a nested call keeps the ceiling of agent " + strconv.Quote(agent) + ", which started the chain of calls: agents." + agent + ".max_permission)"
		} else {
			msg += " (a nested call keeps the ceiling of the agent that started it)"
		}
	} else {
		msg += " (agents." + caller + ".max_permission)"
	}
	return &abi.ToolError{Code: abi.CapabilityDenied, Message: msg,
		Data: map[string]any{"caller": caller, "permission_level": level, "max_permission": max}}
}

// checkRate applies the caller's, the tool's, the provider's and the
// global limit, in that order. A call refused by a later limiter gets back
// the tokens the earlier ones gave it (ratelimit.Limiter.RefundLate), so a
// refused call spends no token anywhere, unless the refusal comes more
// than one interval of an earlier limiter after now (see refuse). With e nil (a read outside any
// tool, ReadSpaceAs) only the caller's and the global limit apply.
//
// All limiters are asked at now, one clock reading for all of them (the
// call's start, and for a call refused at its start the time of the
// check: see dispatch).
func (h *Host) checkRate(now time.Time, callerLim *ratelimit.Limiter, caller string, e *registry.Entry) *abi.ToolError {
	var taken [3]*ratelimit.Limiter
	n := 0
	refuse := func(retry time.Duration, who string, l *ratelimit.Limiter) *abi.ToolError {
		if n > 0 {
			if rateRefusePause != nil {
				rateRefusePause()
			}
			// Given back as of the refusal's time: when more than
			// one interval of the limiter has passed since now
			// (the call judged at its start, or this goroutine not
			// scheduled for a while), nothing is given back, since
			// the bucket may have filled by itself and lent that
			// token again meanwhile; the refused call spends it
			// (TestRateRefundAfterLongPauseLendsNothing).
			later := rateNow()
			for _, t := range taken[:n] {
				t.RefundLate(now, later)
			}
		}
		te := rateError(retry, who, l)
		if e != nil && who != "tool "+e.Def.Name {
			// The caller's, provider's or global bucket: through a
			// chain of nested calls, which hop was refused (found by
			// p117; TestRateErrorNamesLimit).
			te.Message = "call of " + e.Def.Name + ": " + te.Message
		}
		return te
	}
	if callerLim != nil {
		if ok, retry := callerLim.Allow(now); !ok {
			return refuse(retry, "caller "+strconv.Quote(caller), callerLim)
		}
		taken[n], n = callerLim, n+1
	}
	if e != nil && (len(h.pol.toolLims) > 0 || len(h.pol.toolPats) > 0) {
		if l := h.pol.toolLimiter(e.Def.Name); l != nil {
			if ok, retry := l.Allow(now); !ok {
				return refuse(retry, "tool "+e.Def.Name, l)
			}
			taken[n], n = l, n+1
		}
	}
	if e != nil && len(h.pol.provLims) > 0 {
		if l := h.pol.provLims[e.Provider.Info.ID]; l != nil {
			if ok, retry := l.Allow(now); !ok {
				return refuse(retry, "provider "+e.Provider.Info.ID, l)
			}
			taken[n], n = l, n+1
		}
	}
	if g := h.pol.global; g != nil {
		if ok, retry := g.Allow(now); !ok {
			return refuse(retry, "the host (global limit)", g)
		}
	}
	return nil
}

// rateNow is the clock of the rate checks (a variable for the tests).
var rateNow = time.Now

// rateRefusePause, set by tests, runs in checkRate between a limiter's
// refusal and the refunds of the tokens taken before it: a goroutine
// paused there.
var rateRefusePause func()

// rateError is the RateLimited error of a refused call: retry is the time
// until the refusing bucket l holds a token again (at least 1ms is said).
// It names l's config key and rate (data.limit: the key).
func rateError(retry time.Duration, who string, l *ratelimit.Limiter) *abi.ToolError {
	ms := max(int64(math.Ceil(float64(retry)/float64(time.Millisecond))), 1)
	return &abi.ToolError{Code: abi.RateLimited, Message: "rate limit of " + who + " reached (" + l.Name + ": " +
		strconv.FormatFloat(l.PerSecond(), 'g', -1, 64) + "/s, burst " + strconv.Itoa(l.Burst()) + "); retry in " + strconv.FormatInt(ms, 10) + "ms",
		Data: map[string]any{"retry_after_ms": ms, "limit": l.Name}}
}

// paramsTooLarge is the refusal of params of e over limits.max_params_bytes.
func paramsTooLarge(e *registry.Entry, limit int) *abi.ToolError {
	return &abi.ToolError{Code: abi.TooLarge, Message: "params of " + e.Def.Name + " exceed " + strconv.Itoa(limit) + " bytes (limits.max_params_bytes); pass bulk data as a Space ObjectId",
		Data: map[string]any{"limit": int64(limit)}}
}

// resultTooLarge is the refusal of a result of e over limits.max_result_bytes.
func resultTooLarge(e *registry.Entry, limit int) *abi.ToolError {
	return &abi.ToolError{Code: abi.TooLarge, Message: "result of " + e.Def.Name + " exceeds " + strconv.Itoa(limit) + " bytes (limits.max_result_bytes)",
		Data: map[string]any{"limit": int64(limit)}}
}

// overLimitParams stands for the params of a native provider's nested
// call that are sure to be over limits.max_params_bytes (Env.CallTool):
// checkParams refuses it as it would refuse them, and the audit record
// has no params (the provider's own maps, which the audit goroutine would
// read while the provider changes them after the call).
var overLimitParams any = &struct{ overLimit byte }{}

// checkParams brings params into canonical form, bounds their size and
// validates them against the tool's schema.
func (h *Host) checkParams(params *any, e *registry.Entry) *abi.ToolError {
	if *params == overLimitParams {
		*params = nil
		return paramsTooLarge(e, h.pol.maxParams)
	}
	size, canonical := measure(*params, h.pol.maxParams)
	if !canonical {
		n, err := normalizeGoValue(*params, h.pol.maxParams)
		if errors.Is(err, abi.ErrOverLimit) {
			return paramsTooLarge(e, h.pol.maxParams)
		}
		if err != nil {
			return &abi.ToolError{Code: abi.InvalidParams, Message: "params of " + e.Def.Name + " are not a JSON value: " + err.Error()}
		}
		*params = n
		size, _ = measure(n, h.pol.maxParams)
	}
	if size > h.pol.maxParams && jsonOver(*params, h.pol.maxParams) {
		return paramsTooLarge(e, h.pol.maxParams)
	}
	if e.Params != nil {
		if err := e.Params.Validate(*params); err != nil {
			return &abi.ToolError{Code: abi.InvalidParams, Message: "params of " + e.Def.Name + "@" + e.Def.Version + " violate its schema: " + err.Error() + misspeltParam(e.Def.Parameters, *params)}
		}
	}
	return nil
}

// misspeltParam is a hint for params refused by their schema: a required
// property missing while a member the schema does not declare is close to
// its name (`objectid` for `object_id`, `objectId`) is most likely a
// misspelling, which "missing required property" alone does not show.
func misspeltParam(schema map[string]any, params any) string {
	m, ok := params.(map[string]any)
	if !ok || len(m) == 0 || len(m) > 64 {
		return ""
	}
	props, _ := schema["properties"].(map[string]any)
	var req []any
	switch r := schema["required"].(type) {
	case []any:
		req = r
	case []string:
		for _, n := range r {
			req = append(req, n)
		}
	}
	var undeclared []string // the members the schema does not declare, sorted
	for k := range m {
		if _, declared := props[k]; !declared && len(k) <= 128 {
			undeclared = append(undeclared, k)
		}
	}
	slices.Sort(undeclared)
	for _, r := range req {
		want, ok := r.(string)
		if !ok {
			continue
		}
		if _, given := m[want]; given {
			continue
		}
		for _, k := range undeclared {
			if editdist.SameSpelling(k, want) || editdist.Levenshtein(k, want, editdist.Limit(want)) <= editdist.Limit(want) {
				return fmt.Sprintf(" (params has %q, which the schema does not declare: did you mean %q?)", k, want)
			}
		}
	}
	return ""
}

// canonicalErrorData returns te with its data in canonical form, as a
// result is: a provider's error data is sent to callers and written to the
// audit log as JSON, where member names that are not UTF-8 become one
// name twice and a Go value with no JSON form fails the answer. Data that
// cannot be made canonical is dropped, the reason added to the message.
// te itself is not changed (a provider may return one ToolError twice).
// Data sure to be over limit (limits.max_result_bytes) is dropped as
// boundError drops it, before it is normalized whole.
func canonicalErrorData(te *abi.ToolError, limit int) *abi.ToolError {
	if te.Data == nil || abi.IsCanonical(te.Data) {
		return te
	}
	c := *te
	n, err := normalizeGoValue(abi.Copy(te.Data), limit) // not the provider's own maps
	switch {
	case errors.Is(err, abi.ErrOverLimit):
		c.Data = nil
		c.Message += errorDataDropped(limit)
	case err != nil:
		c.Data = nil
		c.Message += " (its error data was dropped: it is not a JSON value: " + err.Error() + ")"
	default:
		c.Data = n
	}
	return &c
}

// errorDataDropped is what a provider's error message is followed by when
// its data, over limits.max_result_bytes, is dropped.
func errorDataDropped(limit int) string {
	return " (its error data, over limits.max_result_bytes (" + strconv.Itoa(limit) + " bytes), dropped)"
}

// marshalPanic is a panic in a Go value's own MarshalJSON or MarshalText.
type marshalPanic struct{ value string }

func (m *marshalPanic) Error() string { return "encoding it as JSON panicked: " + m.value }

// normalizeGoValue is abi.Normalize of a provider's result or error data,
// or of a Go caller's params (Host.Call, a native tool's Env.CallTool), a
// panic of a Go value in its own MarshalJSON or MarshalText returned as a
// *marshalPanic: it ran in the host's pipeline, past callProvider's
// recover, and unwound the caller's goroutine (a call's params: with no
// audit record of the call).
// limit, if above 0, bounds the value's JSON (abi.NormalizeWithin).
func normalizeGoValue(v any, limit int) (n any, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = nil, &marshalPanic{value: fmt.Sprint(r)}
		}
	}()
	if limit > 0 {
		return abi.NormalizeWithin(v, limit)
	}
	return abi.Normalize(v)
}

// maxErrorMessage bounds the message of a provider's ToolError (the
// audit record keeps less: audit.Options.MaxErrorBytes).
const maxErrorMessage = 64 << 10

// boundError bounds what a provider's error carries to the caller, as
// checkResult bounds a result: a message past maxErrorMessage is cut,
// saying so, and Data past limits.max_result_bytes is dropped, the
// message saying why. te is not changed (it may be the provider's own).
func (h *Host) boundError(te *abi.ToolError) *abi.ToolError {
	msgLong := len(te.Message) > maxErrorMessage
	dataBig := false
	if te.Data != nil {
		size, _ := measure(te.Data, h.pol.maxResult)
		dataBig = size > h.pol.maxResult && jsonOver(te.Data, h.pol.maxResult)
	}
	if !msgLong && !dataBig {
		return te
	}
	c := *te
	if msgLong {
		c.Message = clipText(c.Message, maxErrorMessage) + " (the provider's message of " + strconv.Itoa(len(te.Message)) + " bytes, cut)"
	}
	if dataBig {
		c.Data = nil
		c.Message += errorDataDropped(h.pol.maxResult)
	}
	return &c
}

// checkResult normalizes, bounds and validates a successful result.
func (h *Host) checkResult(result *any, e *registry.Entry) *abi.ToolError {
	size, canonical := measure(*result, h.pol.maxResult)
	if !canonical {
		n, err := normalizeGoValue(*result, h.pol.maxResult)
		if errors.Is(err, abi.ErrOverLimit) {
			return resultTooLarge(e, h.pol.maxResult)
		}
		var crash *marshalPanic
		if errors.As(err, &crash) {
			return &abi.ToolError{Code: abi.ProviderCrashed, Message: "result of " + e.Def.Name + ": " + err.Error(),
				Data: map[string]any{"panic": crash.value}}
		}
		if err != nil {
			return &abi.ToolError{Code: abi.InvalidResult, Message: "result of " + e.Def.Name + " is not a JSON value: " + err.Error()}
		}
		*result = n
		size, _ = measure(n, h.pol.maxResult)
	}
	if size > h.pol.maxResult && jsonOver(*result, h.pol.maxResult) {
		return resultTooLarge(e, h.pol.maxResult)
	}
	if e.Returns != nil {
		if err := e.Returns.Validate(*result); err != nil {
			return &abi.ToolError{Code: abi.InvalidResult, Message: "result of " + e.Def.Name + "@" + e.Def.Version + " violates its return schema: " + err.Error()}
		}
	}
	return nil
}

// deprecation returns the entry's deprecation note and logs it once per
// tool version.
func (h *Host) deprecation(e *registry.Entry) *abi.Deprecation {
	d := e.Def.Deprecation
	if d == nil {
		d = &abi.Deprecation{}
	}
	// Keyed by name, not by the entry: an entry holds its provider (and
	// its implementation), which a reload or removal must let go.
	// Once per definition: the value is the entry's RegisteredAt, renewed
	// when a reload changes the definition (its deprecation note too) or
	// the version comes back, which is then logged again.
	key := e.Provider.Info.ID + "\x00" + e.Def.Name + "@" + e.Def.Version
	if prev, seen := h.warned.Swap(key, e.RegisteredAt); !seen || !prev.(time.Time).Equal(e.RegisteredAt) {
		h.log.Warn("deprecated tool called", "tool", e.Def.Name, "version", e.Def.Version,
			"since", d.Since, "replacement", d.Replacement, "message", d.Message)
	}
	return d
}

func (h *Host) logAudit(start time.Time, in *abi.ToolCall, f *frame, e *registry.Entry, info *CallInfo, params, result any, terr *abi.ToolError) {
	if params == overLimitParams || params == nil && in.Params == overLimitParams {
		// Refused over the limit before they were copied: not kept,
		// so no hash ("" as the log's params_hash); nil was hashed as
		// null, a record of a call given null.
		params = audit.NotKept
	}
	ae := audit.Entry{
		Time:     start,
		CallID:   info.CallID,
		ParentID: in.ParentID,
		Caller:   f.caller,
		Provider: info.Provider,
		Tool:     in.Tool,
		Version:  info.Version,
		Runtime:  info.Runtime,
		Params:   params,
		Result:   result,
		Outcome:  "ok",
		Latency:  info.Latency,
	}
	if f.origin != nil {
		ae.Principal, ae.Session, ae.Remote = f.origin.Principal, f.origin.Session, f.origin.Remote
	}
	if e != nil {
		ae.Tool = e.Def.Name
		ae.Untrusted = e.Provider.Trust == abi.Untrusted
	}
	if terr != nil {
		ae.Outcome = string(terr.Code)
		ae.Error = terr.Message
	} else if info.Deprecation != nil {
		ae.Error = deprecationNote(info.Deprecation)
	}
	if d := f.denied.Load(); d != nil && (terr == nil || !strings.Contains(terr.Message, *d)) {
		// First, as the error is cut at 1 KiB in the record.
		note := audit.RefusalNote + *d
		if n := f.deniedN.Load(); n > 1 {
			note += " (" + strconv.Itoa(int(n)) + " refused in all)"
		}
		if ae.Error != "" {
			note += "; " + ae.Error
		}
		ae.Error = note
	}
	h.audit.Log(ae)
}

func deprecationNote(d *abi.Deprecation) string {
	s := "deprecated"
	if d.Since != "" {
		s += " since " + d.Since
	}
	if d.Replacement != "" {
		s += "; use " + d.Replacement
	}
	if d.Message != "" {
		s += ": " + d.Message
	}
	return s
}

var errNoSpaces = errors.New("no Space store is configured")

// MayCall reports whether agent may call e's tool from outside the host:
// the capability and permission checks of the pipeline (rate limits and
// params aside). It returns nil, or the CapabilityDenied error a call
// would get (InvalidRequest for a nil e, as a failed Resolve returns).
// A server uses it to list only what a client's agent can call.
func (h *Host) MayCall(agent string, e *registry.Entry) error {
	ag := h.pol.agents[agent]
	if ag == nil {
		return h.unknownCaller(agent)
	}
	if e == nil {
		return abi.Errorf(abi.InvalidRequest, "MayCall of agent %q: no tool entry (nil *registry.Entry)", agent)
	}
	if terr := checkCaps(agent, ag.grants, e, false); terr != nil {
		return terr
	}
	if terr := checkPermission(agent, ag.maxPerm, e, nil); terr != nil {
		return terr
	}
	return nil
}
