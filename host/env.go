package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/registry"
	"github.com/aios-host/aios-host/space"
)

var (
	_ abi.Env          = (*frame)(nil)
	_ abi.Checker      = (*frame)(nil)
	_ abi.RefusalNoter = (*frame)(nil)
)

// ServedVersion implements abi.VersionReporter: the call's CallInfo and
// audit record name version, the code that served it.
func (f *frame) ServedVersion(version string) { f.served.Store(&version) }

// Check implements abi.Checker: the second check, without using anything.
func (f *frame) Check(c abi.Capability) error {
	if terr := f.allow(c); terr != nil {
		return f.refused(terr)
	}
	return nil
}

// NoteRefused implements abi.RefusalNoter: a runtime's own refusal of a
// host service, noted as the host's own are (refused).
func (f *frame) NoteRefused(te *abi.ToolError) { f.refused(te) }

// refused notes te, a host service's refusal, for the call's audit
// record when it is a CapabilityDenied (a tool that caught it and
// answered otherwise left no trace of what it tried), and returns it.
func (f *frame) refused(te *abi.ToolError) *abi.ToolError {
	if te != nil && te.Code == abi.CapabilityDenied {
		if f.deniedN.Add(1) == 1 {
			msg := te.Message
			f.denied.Store(&msg)
		}
	}
	return te
}

// Call implements abi.Env.
func (f *frame) Call() *abi.ToolCall { return &f.call }

// Logger implements abi.Env: the host logger tagged with provider and call.
// When the call was made with a WithCallLog context, what is logged also
// goes to its CallLogFunc.
func (f *frame) Logger() *slog.Logger {
	l := f.h.log.With("provider", f.entry.Provider.Info.ID, "tool", f.call.Tool, "call", f.call.ID)
	if fn := f.callLog(); fn != nil {
		l = slog.New(&observedHandler{base: l.Handler(), fn: fn,
			head: CallLog{Provider: f.entry.Provider.Info.ID, Tool: f.call.Tool, CallID: f.call.ID}})
	}
	return l
}

// endedError refuses an Env service asked for after the call ended.
func (f *frame) endedError() *abi.ToolError {
	return &abi.ToolError{Code: abi.Unavailable, Message: "call " + f.call.ID + " of " + f.call.Tool + " has ended; an Env is valid only while the provider serves its call"}
}

// allow is the second of the three checks: a host service used while
// serving this call needs req both in the caller's effective grants and in
// the provider's own grants.
func (f *frame) allow(req abi.Capability) *abi.ToolError {
	if f.ended.Load() {
		return f.endedError()
	}
	if !f.grants.Allows(req) {
		msg := "caller " + strconv.Quote(f.caller) + " lacks " + req.String() +
			" (needed by " + f.entry.Provider.Info.ID + " while serving " + f.call.Tool + ")"
		if why := f.whyLacks(req); why != "" {
			msg += "; " + why
			if par := f.parent.Load(); par != nil && par.entry.Provider.Grants.Allows(req) {
				msg += " (a nested call holds only what every caller before it holds)"
			}
		}
		data := map[string]any{"missing": req.String(), "caller": f.caller}
		if p := f.entry.Provider; !p.Grants.Allows(req) {
			// Both sides lack it: naming the caller alone had the
			// operator grant it there and be refused again, for the
			// provider.
			msg += "; nor does the provider hold it: " + f.h.providerDenied(p, req).Message
			data["provider"] = p.Info.ID
		}
		return &abi.ToolError{Code: abi.CapabilityDenied, Message: msg, Data: data}
	}
	if !f.entry.Provider.Grants.Allows(req) {
		return f.h.providerDenied(f.entry.Provider, req)
	}
	return nil
}

// whyLacks says why nested call f's grants (what every caller on its way
// holds) lack req: the provider making the call does not hold it (what to
// do: providerDenied), or, when it does, who before it does not: the
// agent that started the chain, or a provider the chain passed through.
// "caller X lacks WriteSpace(x)" alone blamed a provider that holds it.
// It returns "" for a top-level call.
func (f *frame) whyLacks(req abi.Capability) string {
	par := f.parent.Load()
	if par == nil {
		return ""
	}
	if rec := par.entry.Provider; !rec.Grants.Allows(req) {
		return f.h.providerDenied(rec, req).Message
	}
	return chainLacking(par, false, func(g abi.Grants) bool { return !g.Allows(req) },
		func(id string) string { return "provider " + id + ", through which the call came, does not hold it" },
		func(agent string) string {
			return "agent " + strconv.Quote(agent) + ", which started the chain of calls, does not hold it (agents." + agent + ".grants)"
		})
}

// chainLacking names who on the chain of calls from frame s up lacks
// something: the provider of each frame above s (and of s itself when
// withS) for which lacks(its grants), then the agent that started the
// chain, when lacks(the top frame's grants), named by provider and agent;
// the chain's start first, "; " between. A top frame that has ended (an
// abandoned call's ancestors may have) cuts the chain: the rest of it is
// unknown. (A frame is marked ended before its parent is dropped.)
func chainLacking(s *frame, withS bool, lacks func(abi.Grants) bool, provider, agent func(string) string) string {
	var who []string
	for a := s; a != nil; {
		if rec := a.entry.Provider; (a != s || withS) && lacks(rec.Grants) {
			who = append(who, provider(rec.Info.ID))
		}
		up := a.parent.Load()
		if up == nil {
			if !a.ended.Load() && lacks(a.grants) {
				who = append(who, agent(a.caller))
			}
			break
		}
		a = up
	}
	slices.Reverse(who)
	return strings.Join(who, "; ")
}

// chainText says, for a DepthExceeded refusal of tool, the chain of calls
// that led to it: the agent, each tool on the way (a long chain shortened
// to its ends) and the first tool that calls itself, which is what a user
// must change ("call of pong is nested 9 deep" named neither). depth is
// the refused call's.
func (f *frame) chainText(tool string, depth int) string {
	names := []string{tool}
	top := f
	for a := f.up(); a != nil; a = a.up() {
		names = append(names, a.entry.Def.Name)
		top = a
	}
	slices.Reverse(names)
	var b strings.Builder
	b.WriteString(": ")
	switch {
	case top.ended.Load():
		b.WriteString("… → ") // an abandoned call's ancestors have ended
	case top.caller != "":
		b.WriteString("agent " + strconv.Quote(top.caller) + " → ")
	}
	if given := depth - (len(names) - 1); given > 0 {
		b.WriteString("(a call its client gave depth " + strconv.Itoa(given) + ") → ")
	}
	const head, tail = 4, 6
	for i, n := range names {
		if len(names) > head+tail+1 && i >= head && i < len(names)-tail {
			if i == head {
				b.WriteString(" → … (" + strconv.Itoa(len(names)-head-tail) + " more)")
			}
			continue
		}
		if i > 0 {
			b.WriteString(" → ")
		}
		b.WriteString(n)
	}
	// The first tool called again within its own call.
	for j := 1; j < len(names); j++ {
		if i := slices.Index(names[:j], names[j]); i >= 0 {
			b.WriteString("; " + names[i] + " calls itself")
			if via := names[i+1 : j]; len(via) > 0 {
				if len(via) > 3 {
					via = append(via[:3:3], "…")
				}
				b.WriteString(" through " + strings.Join(via, " → "))
			}
			break
		}
	}
	return b.String()
}

// up is the frame of the call that made f: its parent (Env.CallTool) or
// the call under whose context Host.Call made it (reentered), else nil.
func (f *frame) up() *frame {
	if p := f.parent.Load(); p != nil {
		return p
	}
	return f.reentered.Load()
}

// chainAgent is the agent that started the chain of calls f is part of,
// or "" when that is unknown (the top frame has ended: an abandoned
// call's ancestors may have).
func (f *frame) chainAgent() string {
	top := f
	for a := f.parent.Load(); a != nil; a = a.parent.Load() {
		top = a
	}
	if top.ended.Load() {
		return ""
	}
	return top.caller
}

// holdsNone names who on the way to nested call f holds no grant of kind
// (the agent that started the chain, the providers it came through),
// when its grants hold none: the message's "caller" is the provider
// making the call, which may hold some. "" for a top-level call.
func (f *frame) holdsNone(kind string) string {
	return chainLacking(f.parent.Load(), true, func(g abi.Grants) bool { return !holdsKind(g, kind) },
		func(id string) string { return "provider " + id + " holds none" },
		func(agent string) string {
			return "agent " + strconv.Quote(agent) + ", which started the chain of calls, holds none (agents." + agent + ".grants)"
		})
}

// providerDenied is the CapabilityDenied of a provider that does not hold
// req, saying how to give it: declare the capability when the provider did
// not ask for it; add it to providers.<id>.grants when that list dropped
// it; raise its trust level when its level's cap dropped it.
func (h *Host) providerDenied(p *registry.ProviderRecord, req abi.Capability) *abi.ToolError {
	msg := "provider " + p.Info.ID + " (trust " + p.Trust.String() + ") does not hold " + req.String() + "; grants: " + grantList(p.Grants)
	if asked, err := abi.ParseGrants(p.Info.Capabilities); err == nil && asked.Allows(req) {
		msg += ". It asked for it, but " + h.pol.whyDropped(p.Info.ID, p.Source, p.Trust, []string{req.String()})
	} else if c, why := unmatchableAsk(asked, req.Kind); why != "" {
		msg += ". It asked for " + c.String() + ", which grants nothing: " + why
	} else {
		msg += ". It did not ask for it: declare it in the provider's capabilities"
	}
	return &abi.ToolError{Code: abi.CapabilityDenied, Message: msg,
		Data: map[string]any{"missing": req.String(), "provider": p.Info.ID, "trust": p.Trust.String()}}
}

// unmatchableAsk returns the first capability of kind among asked whose
// pattern can match no name (config.UnmatchableArg: a port in a Network
// host, a capital in a space name) and why, or "".
func unmatchableAsk(asked abi.Grants, kind string) (abi.Capability, string) {
	for _, c := range asked {
		if c.Kind == kind {
			if why := config.UnmatchableArg(c); why != "" {
				return c, why
			}
		}
	}
	return abi.Capability{}, ""
}

// trustHint says how a provider gets a higher trust level (docs/trust.md).
const trustHint = "sign its Adapter Card, or vouch for its plugin folder (trust.folders) or its id (providers.<id>.trust) in the config; see docs/trust.md"

func grantList(g abi.Grants) string {
	if len(g) == 0 {
		return "none"
	}
	return joinNames(g.Strings())
}

// nestedGrants is what a nested call may use: the caller's effective
// grants ∩ the provider's grants. A tool never reaches what its caller
// could not, nor what its provider was not granted. (Cached per grant set
// and provider record, so this is a lock-free map read.)
func (f *frame) nestedGrants() abi.Grants {
	return f.h.grants.intersect(f.grants, f.entry.Provider, f.h.reg)
}

// CallTool implements abi.Env: the nested call re-enters the pipeline as
// caller = this provider, with attenuated grants, parent id and depth+1.
// Its deadline is at most this call's.
func (f *frame) CallTool(ctx context.Context, tool, version string, params any) (any, error) {
	if f.ended.Load() {
		return nil, f.endedError()
	}
	if tool == "" {
		// As internal/hostop refuses it for Python and JS worker
		// processes: a nested call of "" was NotFound from a native,
		// in-process JS or component provider, InvalidParams from those.
		return nil, abi.Errorf(abi.InvalidParams, "call_tool: no tool name")
	}
	if ctx == nil {
		ctx = &f.ctx
	} else if ctx != context.Context(&f.ctx) && (ctx.Value(callCtxKey{}) != &f.ctx || ctx.Done() == nil) {
		// A nested call is the call's, as a completion is (Complete): one
		// made under a context not derived from the call's (a native
		// tool's goroutine with context.Background()), or derived from it
		// but never done (context.WithoutCancel, which keeps its values),
		// ran on after the call had returned or its caller had cancelled
		// it, to its deadline. It ends with the call (its deadline ends
		// it anyway, as Timeout).
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(&f.ctx, func() {
			if !errors.Is(f.ctx.Err(), context.DeadlineExceeded) {
				cancel()
			}
		})()
	}
	h := f.h
	nf := &frame{h: h, caller: f.entry.Provider.Info.ID, grants: f.nestedGrants(), maxPerm: f.maxPerm, origin: f.origin, logFn: f.callLog()}
	nf.parent.Store(f)
	// The audit log hashes the params and the result after the call, on
	// its own goroutine. Other runtimes hand over values decoded for this
	// host call and copy the result into their guest; Go code keeps its
	// maps and changes them (a result enriched and returned, params reused
	// in a loop), which would race the audit writer (a fatal concurrent map
	// access): a native provider gets and gives copies.
	native := f.entry.Provider.Info.Runtime == abi.RuntimeNative
	if native {
		// Bounded as the pipeline bounds params: a value of Go types of
		// millions of entries was converted whole here first (seconds:
		// the call answered Timeout, not TooLarge). One sure to be over
		// the limit is refused without it, and without the provider's
		// own maps (overLimitParams).
		n, err := normalizeGoValue(abi.Copy(params), h.pol.maxParams)
		switch {
		case err == nil:
			params = n
		case errors.Is(err, abi.ErrOverLimit):
			params = overLimitParams
		} // else the pipeline refuses them (a MarshalJSON that panics too)
	}
	in := abi.ToolCall{ParentID: f.call.ID, Caller: nf.caller, Tool: tool, Version: version, Params: params, Depth: f.call.Depth + 1}
	v, _, err := h.dispatch(ctx, nf, &in, nil, nil, f.call.Deadline)
	if native && err == nil {
		v = abi.Copy(v)
	}
	return v, err
}

// SpaceRead implements abi.Env. With space == "" the spaces this call may
// read are searched in name order.
func (f *frame) SpaceRead(ctx context.Context, spaceName, id string) (abi.Object, error) {
	return f.spaceRead(spaceName, id, 0)
}

// SpaceReadAtMost implements abi.BoundedSpaceReader: SpaceRead of an
// object of at most max bytes (max > 0); a larger one is TooLarge without
// being read.
func (f *frame) SpaceReadAtMost(ctx context.Context, spaceName, id string, max int64) (abi.Object, error) {
	if max <= 0 {
		return abi.Object{}, &abi.ToolError{Code: abi.InvalidParams, Message: "read of object " + id + ": the bound " + strconv.FormatInt(max, 10) + " is not a positive size"}
	}
	return f.spaceRead(spaceName, id, max)
}

// getAtMost is st.Get(sp, id), not read when the object holds more than
// max bytes (max > 0): then it returns the TooLarge to answer, and a nil
// error, as the store's own errors are returned raw.
func getAtMost(st *space.Store, sp, id string, max int64) ([]byte, *abi.ToolError, error) {
	if max > 0 {
		size, err := st.Size(sp, id)
		if err != nil {
			return nil, nil, err
		}
		if size > max {
			return nil, &abi.ToolError{Code: abi.TooLarge,
				Message: "object " + id + " in space " + sp + " has " + strconv.FormatInt(size, 10) + " bytes, over the reader's bound of " + strconv.FormatInt(max, 10),
				Data:    map[string]any{"space": sp, "size": size, "limit": max}}, nil
		}
	}
	data, err := st.Get(sp, id)
	return data, nil, err
}

func (f *frame) spaceRead(spaceName, id string, max int64) (abi.Object, error) {
	if f.ended.Load() {
		return abi.Object{}, f.endedError()
	}
	st := f.h.spaces
	if st == nil {
		return abi.Object{}, &abi.ToolError{Code: abi.Unavailable, Message: errNoSpaces.Error() + " (set data in the config)"}
	}
	if err := space.ValidateID(id); err != nil {
		msg := err.Error()
		if space.ValidateID(spaceName) == nil {
			// ctx.spaces.read('docs', id): the order of Go's
			// c.SpaceRead(space, id), not of JS and Python's read(id, space).
			msg += fmt.Sprintf(" (and the space argument is the ObjectId %s: the arguments look swapped; JS ctx.spaces.read(id, space), Python ctx.spaces.read(object_id, space), Go c.SpaceRead(space, id))", spaceName)
		}
		return abi.Object{}, &abi.ToolError{Code: abi.InvalidParams, Message: msg}
	}
	if spaceName != "" {
		// The name is checked first, as SpaceWrite checks it: a malformed
		// one ("Docs", "docs/../x") is InvalidParams saying why, not a
		// CapabilityDenied for a grant no configuration can give.
		if err := space.ValidateSpaceName(spaceName); err != nil {
			return abi.Object{}, &abi.ToolError{Code: abi.InvalidParams, Message: err.Error()}
		}
		if terr := f.allow(abi.Capability{Kind: abi.CapReadSpace, Arg: spaceName, HasArg: true}); terr != nil {
			return abi.Object{}, f.refused(terr)
		}
		data, over, err := getAtMost(st, spaceName, id, max)
		if err != nil {
			return abi.Object{}, spaceError(err, spaceName, id)
		}
		if over != nil {
			return abi.Object{}, over
		}
		return abi.Object{Space: spaceName, ID: id, Data: data}, nil
	}
	names, err := st.Spaces()
	if err != nil {
		return abi.Object{}, &abi.ToolError{Code: abi.Internal, Message: err.Error()}
	}
	// A space the caller is granted by name counts even before it holds
	// an object: the object is then not found, not forbidden.
	for _, g := range f.grants {
		if g.Kind == abi.CapReadSpace && g.HasArg && !strings.ContainsAny(g.Arg, "*?") &&
			space.ValidateSpaceName(g.Arg) == nil && !slices.Contains(names, g.Arg) {
			names = append(names, g.Arg)
		}
	}
	sort.Strings(names)
	readable := 0
	var firstErr *abi.ToolError
	for _, n := range names {
		if f.allow(abi.Capability{Kind: abi.CapReadSpace, Arg: n, HasArg: true}) != nil {
			continue
		}
		readable++
		data, over, err := getAtMost(st, n, id, max)
		if over != nil {
			// Every copy is as large (the id names the content).
			return abi.Object{}, over
		}
		if errors.Is(err, space.ErrNotFound) {
			continue
		}
		if err != nil {
			// A damaged copy must not hide a good one in a later space
			// (the id names the content, so any copy will do).
			if firstErr == nil {
				firstErr = spaceError(err, n, id)
			}
			continue
		}
		return abi.Object{Space: n, ID: id, Data: data}, nil
	}
	if firstErr != nil {
		return abi.Object{}, firstErr
	}
	if readable == 0 && !mayReadSomeSpace(f.grants, f.entry.Provider.Grants) {
		return abi.Object{}, f.refused(f.searchDenied(id))
	}
	if readable == 0 {
		return abi.Object{}, &abi.ToolError{Code: abi.NotFound, Message: "object " + id + " not found: none of the spaces this call may read exists yet"}
	}
	return abi.Object{}, &abi.ToolError{Code: abi.NotFound, Message: "object " + id + " is in none of the " + strconv.Itoa(readable) + " spaces this call may read"}
}

// searchDenied is the CapabilityDenied of a read by id alone that no space
// may serve: it says which side lacks ReadSpace and how to give it (a
// provider that asked for ReadSpace(documents) but was capped by its trust
// level got only "no space is readable by both", without the reason).
func (f *frame) searchDenied(id string) *abi.ToolError {
	p := f.entry.Provider
	msg := "object " + id + ": no space is readable by both caller " + strconv.Quote(f.caller) + " and provider " + p.Info.ID + " (ReadSpace)"
	data := map[string]any{"missing": "ReadSpace", "caller": f.caller, "provider": p.Info.ID}
	switch {
	case !holdsKind(p.Grants, abi.CapReadSpace):
		req := abi.Capability{Kind: abi.CapReadSpace, Arg: "*", HasArg: true}
		if asked, err := abi.ParseGrants(p.Info.Capabilities); err == nil {
			for _, c := range asked {
				if c.Kind == abi.CapReadSpace {
					req = c
					break
				}
			}
		}
		te := f.h.providerDenied(p, req)
		msg += ": " + te.Message
		data["trust"] = p.Trust.String()
		if !holdsKind(f.grants, abi.CapReadSpace) {
			// The caller's side too: named alone, the provider's was
			// fixed to be refused again for the caller's.
			msg += "; nor does the caller hold any ReadSpace grant"
			if who := f.holdsNone(abi.CapReadSpace); who != "" {
				msg += " (" + who + ")"
			} else if f.call.Depth == 0 {
				msg += " (agents." + f.caller + ".grants)"
			}
		}
	case !holdsKind(f.grants, abi.CapReadSpace):
		msg += ": the caller holds no ReadSpace grant"
		if f.call.Depth > 0 {
			msg += " (a nested call holds only what both its caller and its provider hold)"
		}
		if who := f.holdsNone(abi.CapReadSpace); who != "" {
			msg += "; " + who
		}
	default:
		msg += ": the caller may read " + readSpaces(f.grants) + ", the provider " + readSpaces(p.Grants) + "; name a space both may read"
	}
	return &abi.ToolError{Code: abi.CapabilityDenied, Message: msg, Data: data}
}

func holdsKind(g abi.Grants, kind string) bool {
	for _, c := range g {
		if c.Kind == kind {
			return true
		}
	}
	return false
}

func readSpaces(g abi.Grants) string {
	var out []string
	for _, c := range g {
		if c.Kind == abi.CapReadSpace {
			out = append(out, c.String())
		}
	}
	return joinNames(out)
}

// mayReadSomeSpace reports whether the caller's grants and the provider's
// together allow reading some space: with ReadSpace(*) on both sides a
// search that found no space to look in (a fresh store) has an object
// not found, not a read forbidden.
func mayReadSomeSpace(caller, provider abi.Grants) bool {
	for _, c := range abi.Intersect(caller, provider) {
		if c.Kind == abi.CapReadSpace {
			return true
		}
	}
	return false
}

// SpaceWrite implements abi.Env.
func (f *frame) SpaceWrite(ctx context.Context, spaceName string, data []byte) (abi.Object, error) {
	if f.ended.Load() {
		return abi.Object{}, f.endedError()
	}
	st := f.h.spaces
	if st == nil {
		return abi.Object{}, &abi.ToolError{Code: abi.Unavailable, Message: errNoSpaces.Error() + " (set data in the config)"}
	}
	if err := space.ValidateSpaceName(spaceName); err != nil {
		return abi.Object{}, &abi.ToolError{Code: abi.InvalidParams, Message: err.Error()}
	}
	if terr := f.allow(abi.Capability{Kind: abi.CapWriteSpace, Arg: spaceName, HasArg: true}); terr != nil {
		return abi.Object{}, f.refused(terr)
	}
	id, err := st.Put(spaceName, data)
	if err != nil {
		return abi.Object{}, spaceError(err, spaceName, "")
	}
	return abi.Object{Space: spaceName, ID: id, Data: data}, nil
}

// maxNameInError bounds a space name or object id quoted in an error.
const maxNameInError = 80

// spaceError maps the store's errors onto ABI codes.
func spaceError(err error, spaceName, id string) *abi.ToolError {
	// Cut as the store cuts them in its messages: a caller's id may be
	// megabytes long, and the message goes into answers and the audit log.
	what := "space " + clipText(spaceName, maxNameInError)
	if id != "" {
		what = "object " + clipText(id, maxNameInError) + " in " + what
	}
	switch {
	case errors.Is(err, space.ErrNotFound):
		return &abi.ToolError{Code: abi.NotFound, Message: what + ": not found"}
	case errors.Is(err, space.ErrInvalid):
		return &abi.ToolError{Code: abi.InvalidParams, Message: what + ": " + err.Error()}
	case errors.Is(err, space.ErrTooLarge), errors.Is(err, space.ErrFull):
		return &abi.ToolError{Code: abi.TooLarge, Message: what + ": " + err.Error()}
	}
	return &abi.ToolError{Code: abi.Internal, Message: what + ": " + err.Error()}
}

// Complete implements abi.Env: needs Inference, then asks the configured
// OpenAI-compatible endpoint.
func (f *frame) Complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	if terr := f.allow(abi.Capability{Kind: abi.CapInference}); terr != nil {
		return abi.CompleteResponse{}, f.refused(terr)
	}
	if req.MaxTokens < 0 || req.MaxTokens > math.MaxInt32 {
		// As the WASM and JS runtimes check it; a native provider's or a
		// Python tool's value came here unchecked and went to the backend.
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.InvalidParams, Message: "inference: max_tokens must be from 0 to " + strconv.Itoa(math.MaxInt32) + " (0: the backend's default), got " + strconv.Itoa(req.MaxTokens)}
	}
	if t := req.Temperature; t != nil && (math.IsNaN(*t) || math.IsInf(*t, 0)) {
		// No JSON form: it failed as "inference request: json:
		// unsupported value: NaN", naming no option.
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.InvalidParams, Message: "inference: temperature must be a finite number, got " + strconv.FormatFloat(*t, 'g', -1, 64)}
	}
	for i, s := range req.Stop {
		// An empty sequence a backend reads as stopping at once (or
		// refuses); one not UTF-8 JSON sends as U+FFFD, a sequence the
		// tool did not give.
		if s == "" || !utf8.ValidString(s) {
			what := "is empty"
			if s != "" {
				what = "is not valid UTF-8"
			}
			return abi.CompleteResponse{}, &abi.ToolError{Code: abi.InvalidParams, Message: "inference: stop sequence " + strconv.Itoa(i) + " " + what}
		}
	}
	if ctx == nil { // as CallTool: the call's own
		ctx = &f.ctx
	} else if ctx != context.Context(&f.ctx) {
		// A completion is the call's: one asked for under another
		// context (a native tool's goroutine with context.Background())
		// ran on after the call had returned, its deadline passed or its
		// caller cancelled, to inference.timeout, holding a place among
		// inference.max_concurrent. It ends with the call.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(&f.ctx, cancel)()
	}
	return f.h.infer.complete(ctx, req)
}
