package host

import (
	"context"
	"sort"
	"strconv"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/space"
)

// SpaceReadTool is the tool name of the audit record of a Space object
// read outside any tool call (an MCP client's resources/read). No tool can
// have it: tool names have no '/'.
const SpaceReadTool = "aios/space.read"

// ReadableSpaces lists the Spaces that exist and that agent may read
// (its ReadSpace grants), sorted. An unknown agent is CapabilityDenied.
func (h *Host) ReadableSpaces(agent string) ([]string, error) {
	if err := h.unmade(); err != nil {
		return nil, err // a zero Host: its policy is nil (it panicked)
	}
	ag := h.pol.agents[agent]
	if ag == nil {
		return nil, h.unknownCaller(agent)
	}
	if h.spaces == nil {
		return nil, nil
	}
	all, err := h.spaces.Spaces()
	if err != nil {
		return nil, abi.Errorf(abi.Internal, "list spaces: %v", err)
	}
	var out []string
	for _, s := range all {
		if ag.grants.Allows(abi.Capability{Kind: abi.CapReadSpace, Arg: s, HasArg: true}) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ListSpaceAs lists the object ids of spaceName, sorted, for agent, who
// needs ReadSpace(spaceName).
func (h *Host) ListSpaceAs(agent, spaceName string) ([]string, error) {
	return h.ListSpacePageAs(agent, spaceName, "", -1)
}

// ListSpacePageAs is ListSpaceAs for one page: at most n ids (n < 0: all)
// that sort after after ("": from the first), read without listing the
// objects before it (space.Store.ListAfter).
func (h *Host) ListSpacePageAs(agent, spaceName, after string, n int) ([]string, error) {
	if err := h.unmade(); err != nil {
		return nil, err
	}
	if err := h.spaceGrant(agent, spaceName); err != nil {
		return nil, err
	}
	if h.spaces == nil {
		return nil, nil
	}
	ids, err := h.spaces.ListAfter(spaceName, after, n)
	if err != nil {
		return nil, spaceError(err, spaceName, "")
	}
	return ids, nil
}

// spaceGrant checks that agent exists and may read spaceName.
func (h *Host) spaceGrant(agent, spaceName string) *abi.ToolError {
	ag := h.pol.agents[agent]
	if ag == nil {
		return h.unknownCaller(agent)
	}
	if err := space.ValidateSpaceName(spaceName); err != nil {
		return abi.Errorf(abi.InvalidParams, "%v", err)
	}
	if !ag.grants.Allows(abi.Capability{Kind: abi.CapReadSpace, Arg: spaceName, HasArg: true}) {
		return abi.Errorf(abi.CapabilityDenied, "agent %q may not read space %q: it lacks ReadSpace(%s) (agents.%s.grants)", agent, spaceName, spaceName, agent)
	}
	return nil
}

// ReadSpaceAs reads object id of spaceName for agent outside any tool
// call, as an MCP client's resources/read does, through the parts of the
// pipeline that apply: the agent must hold ReadSpace(spaceName), the read
// counts against the agent's rate limit and the global one, and it has an
// audit record of its own (tool SpaceReadTool, params {space, object_id},
// result {object_id, bytes}). While the audit log cannot be written it is
// refused, as calls are.
func (h *Host) ReadSpaceAs(ctx context.Context, agent, spaceName, id string) (data []byte, err error) {
	return h.ReadSpaceAsChecked(ctx, agent, spaceName, id, nil)
}

// ReadSpaceAsChecked is ReadSpaceAs with a last check of the data read
// (check may be nil): its error is the read's, in the answer and in the
// audit record (an MCP server refusing an object too large for its
// messages).
func (h *Host) ReadSpaceAsChecked(ctx context.Context, agent, spaceName, id string, check func([]byte) *abi.ToolError) (data []byte, err error) {
	if terr := h.unmade(); terr != nil {
		return nil, terr // nothing to record it in
	}
	// Counted as a call, before h.closed is read and until its record is
	// logged (deferred first, so it runs last): Close waits for it
	// (drainCalls) before closing the audit log. Uncounted, a Close
	// during the read dropped its record, the object served.
	h.calls.Add(1)
	defer h.calls.Add(-1)
	start := time.Now()
	var terr *abi.ToolError
	unaudited := false // refused because nothing can be recorded
	callID := string(h.ids.appendNext(nil))
	defer func() {
		if terr != nil {
			data, err = nil, terr
		}
		if unaudited {
			return
		}
		e := audit.Entry{Time: start, CallID: callID, Caller: agent, Provider: "host", Tool: SpaceReadTool, Runtime: "host",
			Params: map[string]any{"space": spaceName, "object_id": id}, Outcome: "ok", Latency: time.Since(start)}
		if o, _ := ctx.Value(originKey{}).(*Origin); o != nil {
			e.Principal, e.Session, e.Remote = o.Principal, o.Session, o.Remote
		}
		if terr != nil {
			e.Outcome, e.Error = string(terr.Code), terr.Message
		} else {
			e.Result = map[string]any{"object_id": id, "bytes": int64(len(data))}
		}
		h.audit.Log(e)
	}()
	if h.closed.Load() {
		terr, unaudited = &abi.ToolError{Code: abi.Unavailable, Message: "host is closed"}, true
		return
	}
	if aerr := h.audit.Failing(); aerr != nil {
		terr, unaudited = &abi.ToolError{Code: abi.Unavailable, Message: "reads are refused until the audit log can be written again: " + aerr.Error()}, true
		return
	}
	if terr = h.spaceGrant(agent, spaceName); terr != nil {
		return
	}
	if h.spaces == nil {
		terr = &abi.ToolError{Code: abi.Unavailable, Message: errNoSpaces.Error() + " (set data in the config)"}
		return
	}
	if verr := space.ValidateID(id); verr != nil {
		terr = spaceError(verr, spaceName, id)
		return
	}
	if cerr := ctx.Err(); cerr != nil {
		// Which read, and that it never ran, as for a call: the
		// context's own text ("context canceled") named neither (found
		// by p141).
		what := "read of object " + id + " in space " + spaceName
		if terr = abi.AsToolError(cerr, abi.Cancelled); terr.Code == abi.Timeout {
			terr = &abi.ToolError{Code: abi.Timeout, Message: "deadline of the " + what + " (its caller's context) passed before it started"}
		} else {
			terr = withCancelCause(ctx, &abi.ToolError{Code: terr.Code, Message: what + " was cancelled before it started: " + terr.Message})
		}
		return
	}
	if terr = h.checkRate(rateNow(), h.pol.agents[agent].lim, agent, nil); terr != nil {
		// Which read was refused, as a refused call names its tool
		// (it said only the caller's limit: found by p141).
		terr.Message = "read of object " + id + " in space " + spaceName + ": " + terr.Message
		return
	}
	// The size first: an object over the bound is refused without being
	// read (a client asking for a 1 GiB object had the host read it all).
	size, err := h.spaces.Size(spaceName, id)
	if err == nil && size <= int64(h.pol.maxResult) {
		data, err = h.spaces.Get(spaceName, id)
		size = int64(len(data))
	}
	if err != nil {
		terr = spaceError(err, spaceName, id)
		return
	}
	if size > int64(h.pol.maxResult) {
		data = nil
		terr = &abi.ToolError{Code: abi.TooLarge, Message: "object " + id + " in space " + spaceName + " has " + strconv.FormatInt(size, 10) +
			" bytes, over limits.max_result_bytes (" + strconv.Itoa(h.pol.maxResult) + ")", Data: map[string]any{"limit": int64(h.pol.maxResult)}}
		return
	}
	if check != nil {
		if terr = check(data); terr != nil {
			return
		}
	}
	return data, nil
}
