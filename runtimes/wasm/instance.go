package wasm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
	iwire "github.com/aios-host/aios-host/internal/wire"
	"github.com/tetratelabs/wazero/sys"
)

// call serves one ToolCall on this instance. keep is false when the
// instance must not be reused (trap, interruption, protocol violation).
func (inst *instance) call(ctx context.Context, call *abi.ToolCall, env abi.Env) (v any, err error, keep bool) {
	p := inst.p
	dl := call.Deadline
	if d, ok := ctx.Deadline(); ok && (dl.IsZero() || d.Before(dl)) {
		dl = d
	}
	if dl.IsZero() {
		dl = time.Now().Add(p.l.cfg.DefaultDeadline)
	}
	dlNano := dl.UnixNano()
	if dlNano <= 0 {
		dlNano = 1
	}

	// Encode the call straight into the guest's input buffer when there is
	// one (the host owns it across calls): no host buffer, no copy. A call
	// that outgrows it is encoded into the host buffer, and the input
	// buffer grows below.
	dst, direct := inst.enc[:0], false
	if inst.inPtr != 0 && !p.json {
		if view, ok := inst.mem.Read(inst.inPtr, inst.inCap); ok {
			dst, direct = view[:0:len(view)], true
		}
	}
	enc, terr := inst.encodeCall(call, dst)
	if terr != nil {
		return nil, terr, true
	}
	if direct && (len(enc) == 0 || cap(enc) != cap(dst) || &enc[:1][0] != &dst[:1][0]) {
		direct = false // appending reallocated: enc is a host slice now
	}
	if !direct && !p.json {
		inst.enc = reusable(enc)
	}
	if len(enc) > p.maxMsg {
		return nil, abi.Errorf(abi.TooLarge, "call of %s encodes to %d bytes, above runtimes.wasm.max_message_bytes (%d)", call.Tool, len(enc), p.maxMsg), true
	}
	p.trace.Frame("out", enc)

	inst.env, inst.callCtx, inst.cur = env, ctx, call
	inst.mu.Lock()
	inst.watchCtx = ctx
	inst.mu.Unlock()
	inst.deadline.Store(dlNano)
	p.l.wd.poke()
	// A Loader.Close that began meanwhile either sees the deadline stored
	// above (stopAll) or is seen here: no call enters a guest unseen.
	if p.l.wd.closing.Load() {
		inst.interrupt(dlNano, killedClosed)
	}

	var packed uint64
	inst.panicLine, inst.errLine, inst.crashes, inst.awaited = "", inst.errLine[:0], inst.crashes[:0], ""
	ptr, err := inst.inPtr, error(nil)
	if !direct {
		ptr, err = inst.input(len(enc))
	}
	if err == nil {
		if !direct && !inst.mem.Write(ptr, enc) {
			err = fmt.Errorf("aios_alloc returned [%d, %d), outside the guest's %d-byte memory", ptr, uint64(ptr)+uint64(len(enc)), inst.mem.Size())
		} else {
			inst.stack[0], inst.stack[1] = uint64(ptr), uint64(len(enc))
			err = inst.fCall.CallWithStack(inst.ctx, inst.stack)
			packed = inst.stack[0]
			inst.out.flush()
		}
	}

	interrupted := !inst.deadline.CompareAndSwap(dlNano, 0)
	reason := inst.deadline.Swap(0)
	inst.mu.Lock()
	inst.watchCtx = nil
	inst.mu.Unlock()
	inst.env, inst.callCtx, inst.cur = nil, nil, nil

	if interrupted {
		if reason == killedClosed {
			return nil, abi.Errorf(abi.Unavailable, "call of %s was stopped: the wasm runtime is closing (Loader.Close)", call.Tool), false
		}
		while := ""
		if inst.awaited != "" {
			while = " while it awaited " + inst.awaited
		}
		if reason == killedCancelled {
			return nil, abi.Errorf(abi.Cancelled, "call of %s was cancelled%s; the guest was interrupted", call.Tool, while), false
		}
		return nil, abi.Errorf(abi.Timeout, "%s ran past its deadline%s; the guest was interrupted", call.Tool, while), false
	}
	if err != nil {
		return nil, inst.crashError(call.Tool, err), false
	}
	data, err := inst.view(packed, "aios_call result")
	if err != nil {
		return nil, abi.Errorf(abi.ProviderCrashed, "%s: %v", call.Tool, err), false
	}
	p.trace.Frame("in", data)
	if len(data) > p.maxMsg {
		return nil, abi.Errorf(abi.TooLarge, "%s returned %d bytes, above runtimes.wasm.max_message_bytes (%d)", call.Tool, len(data), p.maxMsg), false
	}
	v, guestErr, protoErr := decodeResult(data)
	if protoErr != nil {
		protoErr.Message = call.Tool + ": " + protoErr.Message
		return nil, protoErr, false
	}
	if guestErr != nil {
		guestErr = knownGuestCode(guestErr)
		// A guest that reports its own crash is not trusted to continue.
		return nil, guestErr, inst.keepAfter(guestErr)
	}
	return v, nil, true
}

// crashError turns a wazero call error into ProviderCrashed, quoting the
// panic line the instance wrote to stderr during the call, if any: a Go
// guest's fatal error (a deadlock, a panic outside the handler's goroutine,
// a stack overflow, running out of memory) traps it as "unreachable",
// which alone names nothing.
func (inst *instance) crashError(tool string, err error) *abi.ToolError {
	why := memoryLimitNote(uint64(inst.mem.Size()), inst.p.pages, inst.p.memKey)
	if inst.panicLine != "" {
		why += "; its stderr said: " + inst.panicLine
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		if why != "" {
			return abi.Errorf(abi.ProviderCrashed, "%s: the guest exited with code %d%s", tool, exit.ExitCode(), why)
		}
		return abi.Errorf(abi.ProviderCrashed, "%s: the guest exited with code %d (a Go guest exits with 2 on panic or out of memory; see the host log for its stderr)%s", tool, exit.ExitCode(), why)
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i > 0 {
		msg = msg[:i]
	}
	return abi.Errorf(abi.ProviderCrashed, "%s: the guest trapped: %s%s", tool, msg, why)
}

// view returns the bytes of a packed (ptr<<32 | len) guest buffer, without
// copying: valid until the guest runs again.
func (inst *instance) view(packed uint64, what string) ([]byte, error) {
	ptr, n := uint32(packed>>32), uint32(packed)
	if n == 0 {
		return nil, fmt.Errorf("%s is empty (ptr %d, len 0)", what, ptr)
	}
	data, ok := inst.mem.Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("%s [%d, %d) is outside the guest's %d-byte memory", what, ptr, uint64(ptr)+uint64(n), inst.mem.Size())
	}
	return data, nil
}

// input returns a guest buffer of at least n bytes for the encoded call.
// The host owns it across calls (docs/abi.md): it is allocated once and
// grown, so a steady stream of calls makes no allocator calls.
func (inst *instance) input(n int) (uint32, error) {
	if uint32(n) <= inst.inCap && inst.inPtr != 0 {
		return inst.inPtr, nil
	}
	if inst.inPtr != 0 && inst.fFree != nil {
		inst.stack[0], inst.stack[1] = uint64(inst.inPtr), uint64(inst.inCap)
		// Refused host calls, as aios_alloc's: served, one ran with the
		// call's grants before aios_call, and its answer's aios_alloc
		// ran inside aios_free (found by p181).
		inst.allocating = true
		err := inst.fFree.CallWithStack(inst.ctx, inst.stack)
		inst.allocating = false
		if err != nil {
			// Named, as aios_alloc's trap is: "the guest trapped: wasm
			// error: unreachable" read as aios_call's.
			return 0, fmt.Errorf("aios_free(%d, %d): %w", inst.inPtr, inst.inCap, err)
		}
	}
	want := max(uint32(n), 2*inst.inCap, 1024)
	inst.inPtr, inst.inCap = 0, 0
	ptr, err := inst.alloc(want)
	if want > uint32(n) && errors.As(err, new(*allocNone)) {
		// Twice the last buffer does not fit in the guest's memory, the
		// call may: a call that fits failed "out of memory"
		// (TestInputBufferGrowsWithinMemoryLimit). Both engines.
		want = uint32(n)
		ptr, err = inst.alloc(want)
	}
	if err != nil {
		return 0, err
	}
	inst.inPtr, inst.inCap = ptr, want
	return ptr, nil
}

// alloc calls the guest's aios_alloc and checks the answer.
func (inst *instance) alloc(n uint32) (uint32, error) {
	st := [1]uint64{uint64(n)}
	// A host import called from inside aios_alloc would call aios_alloc
	// again: wazero's call engine is not reentrant (the nested call reuses
	// the outer one's stack) and the recursion overflowed the host's
	// stack, killing the process. hostCall refuses it while this is set.
	inst.allocating = true
	err := inst.fAlloc.CallWithStack(inst.ctx, st[:])
	inst.allocating = false
	if err != nil {
		// Named: "delivering the answer: wasm error: unreachable" did
		// not say the guest's allocator trapped.
		return 0, fmt.Errorf("aios_alloc(%d): %w", n, err)
	}
	ptr := uint32(st[0])
	if ptr == 0 {
		return 0, &allocNone{n}
	}
	if uint64(ptr)+uint64(n) > uint64(inst.mem.Size()) {
		return 0, fmt.Errorf("aios_alloc(%d) returned [%d, %d), outside the guest's %d-byte memory", n, ptr, uint64(ptr)+uint64(n), inst.mem.Size())
	}
	return ptr, nil
}

// allocNone is alloc's error when the guest's aios_alloc returned 0.
type allocNone struct{ n uint32 }

func (e *allocNone) Error() string {
	return fmt.Sprintf("aios_alloc(%d) returned 0 (the guest is out of memory)", e.n)
}

// jsonCall is the ToolCall as sent to a JSON guest.
type jsonCall struct {
	ID       string `json:"id"`
	Tool     string `json:"tool"`
	Params   any    `json:"params"`
	Caller   string `json:"caller,omitempty"`
	ParentID string `json:"parent_id,omitempty"`
	Version  string `json:"version,omitempty"`
	Depth    int    `json:"depth,omitempty"`
}

// encodeCall encodes the ToolCall the guest receives: id, tool, params and,
// when set, caller, parent_id, version and depth. The deadline is enforced
// by the host and not sent.
func (inst *instance) encodeCall(call *abi.ToolCall, dst []byte) ([]byte, *abi.ToolError) {
	if inst.p.json {
		b, err := json.Marshal(jsonCall{call.ID, call.Tool, abi.ForJSON(call.Params), call.Caller, call.ParentID, call.Version, call.Depth})
		if err != nil {
			return nil, abi.Errorf(abi.InvalidParams, "params of %s cannot be encoded as JSON: %v", call.Tool, err)
		}
		return b, nil
	}
	n := 3
	for _, s := range []string{call.Caller, call.ParentID, call.Version} {
		if s != "" {
			n++
		}
	}
	if call.Depth != 0 {
		n++
	}
	b := wire.AppendMapHeader(dst, n)
	b = wire.AppendString(wire.AppendString(b, "id"), call.ID)
	b = wire.AppendString(wire.AppendString(b, "tool"), call.Tool)
	if call.Caller != "" {
		b = wire.AppendString(wire.AppendString(b, "caller"), call.Caller)
	}
	if call.ParentID != "" {
		b = wire.AppendString(wire.AppendString(b, "parent_id"), call.ParentID)
	}
	if call.Version != "" {
		b = wire.AppendString(wire.AppendString(b, "version"), call.Version)
	}
	if call.Depth != 0 {
		b = wire.AppendInt(wire.AppendString(b, "depth"), int64(call.Depth))
	}
	b = wire.AppendString(b, "params")
	mark := len(b)
	b, err := wire.AppendValue(b, call.Params)
	if errors.Is(err, wire.ErrUnsupported) {
		var norm any
		if norm, err = abi.Normalize(call.Params); err == nil {
			b, err = wire.AppendValue(b[:mark], norm)
		}
	}
	if err != nil {
		return nil, abi.Errorf(abi.InvalidParams, "params of %s cannot be encoded: %v", call.Tool, err)
	}
	return b, nil
}

// errorWithoutData reads the error of MessagePack ToolResult data whose
// data holds a value JSON cannot hold (NaN, an infinity, bin): its members
// but data, and why the data is dropped; nil when the error's data holds
// no such value or its other members do not decode.
func errorWithoutData(data []byte) (map[string]any, string) {
	ev, ok, _ := wire.MapField(data, "error")
	if !ok {
		return nil, ""
	}
	dv, ok, _ := wire.MapField(ev, "data")
	if !ok {
		return nil, ""
	}
	p := notJSONAt(dv, "$", 0)
	if p == "" {
		return nil, ""
	}
	why := "its data at " + p
	if _, err := wire.DecodeValue(dv); err != nil {
		var se *wire.SyntaxError
		if errors.As(err, &se) {
			why = fmt.Sprintf("its data at %s: %s", p, se.Msg)
		}
	}
	em := make(map[string]any, 2)
	for _, k := range []string{"code", "message"} {
		if b, ok, _ := wire.MapField(ev, k); ok {
			v, err := wire.DecodeValue(b)
			if err != nil {
				return nil, ""
			}
			em[k] = v
		}
	}
	return em, why
}

// knownGuestCode keeps a guest's error code when it is one of abi's
// (docs/abi.md §2, ToolResult) and otherwise makes the error a
// ProviderError naming the code, as the JS and MCP runtimes do: callers
// switch on a closed set of codes (abi.ErrorCode). (The host's pipeline
// does the same for every provider; the guest's message says more.)
func knownGuestCode(e *abi.ToolError) *abi.ToolError {
	if e.Code.Known() {
		return e
	}
	return &abi.ToolError{Code: abi.ProviderError, Message: fmt.Sprintf("%s (the guest's error code %q is not one of the ABI's)", e.Message, e.Code), Data: e.Data}
}

// notTextError is a JSON result value that is not Unicode text, or
// holds a number the host cannot hold.
type notTextError struct{ what string }

func (e *notTextError) Error() string { return "value " + e.what }

// jsonNotText says what makes JSON text b other than Unicode text (an
// invalid UTF-8 byte, an escaped lone surrogate), or "" when nothing
// does. encoding/json reads either as U+FFFD, so two strings, or two
// member names, would become one (docs/abi.md §2: strings are valid
// UTF-8).
func jsonNotText(b []byte) string {
	if i := iwire.InvalidUTF8(b); i >= 0 {
		return fmt.Sprintf("is not valid UTF-8 (byte 0x%02x at offset %d): strings are Unicode text; encode bytes as base64 or store them and pass an ObjectId", b[i], i)
	}
	if i := iwire.LoneSurrogate(b); i >= 0 {
		return fmt.Sprintf("holds %s at offset %d, half of a UTF-16 surrogate pair without its other half: it has no Unicode form", b[i:i+6], i)
	}
	return ""
}

// jsonResultMap reads a JSON ToolResult into the map wire.ParseResult
// reads a MessagePack one from, so that both codecs mean the same: member
// names match exactly (encoding/json's struct decoding matched them
// case-insensitively: {"Value": 5} was 5 in JSON and null in MessagePack),
// and the value and the error's data are each a value of their own, nested
// at most as deep as a value may be. Error data that is not Unicode text
// is left out, dropped saying why (the error's code and message kept, as
// the pipeline drops a MessagePack guest's): encoding/json read it as
// U+FFFD, two member names one.
func jsonResultMap(data []byte) (m map[string]any, dropped string, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, "", err
	}
	m = make(map[string]any, 2)
	if raw, ok := top["value"]; ok {
		if what := jsonNotText(raw); what != "" {
			return nil, "", &notTextError{what}
		}
		var v any
		if err := abi.UnmarshalJSONValue(raw, &v); err != nil {
			// Well-formed (data was read above): a value the host cannot
			// hold, a number beyond a float64's range, as NaN in
			// MessagePack: the result is wrong, the instance is not.
			return nil, "", &notTextError{"at " + err.Error()}
		}
		m["value"] = v
	}
	raw, ok := top["error"]
	if !ok {
		return m, "", nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		var v any
		if err := abi.UnmarshalJSONValue(raw, &v); err != nil {
			return nil, "", fmt.Errorf("error: %v", err)
		}
		m["error"] = v // null, or not a map: ParseResult says which
		return m, "", nil
	}
	em := make(map[string]any, 3)
	for _, k := range []string{"code", "message", "data"} {
		if raw, ok := members[k]; ok {
			var v any
			if k == "data" {
				if what := jsonNotText(raw); what != "" {
					dropped = "its data " + what
					continue
				}
				if err := abi.UnmarshalJSONValue(raw, &v); err != nil {
					// Well-formed: a number beyond a float64's range.
					dropped = "its data at " + err.Error()
					continue
				}
			} else if err := abi.UnmarshalJSONValue(raw, &v); err != nil {
				return nil, "", fmt.Errorf("error.%s: %v", k, err)
			}
			em[k] = v
		}
	}
	m["error"] = em
	return m, dropped, nil
}

// decodeResult decodes a ToolResult in either codec. guestErr is the error
// the guest reported; protoErr says the result itself is unusable.
func decodeResult(data []byte) (v any, guestErr, protoErr *abi.ToolError) {
	codec, err := abi.DetectCodec(data)
	if err != nil {
		return nil, nil, abi.Errorf(abi.ProviderError, "the guest returned a result in an %v", err)
	}
	if err := iwire.CheckCost(data, codec.Name(), iwire.DecodeBudget); err != nil {
		return nil, nil, abi.Errorf(abi.TooLarge, "the guest's result: %v", err)
	}
	var raw any
	dropped := ""
	if codec == abi.JSON {
		if raw, dropped, err = jsonResultMap(data); err != nil {
			if nt, ok := err.(*notTextError); ok {
				// As a MessagePack str that is not UTF-8: the result is
				// wrong, the instance is not.
				return nil, abi.Errorf(abi.InvalidResult, "the guest's result is not a JSON value: its value %s", nt.what), nil
			}
			return nil, nil, abi.Errorf(abi.ProviderError, "the guest returned a malformed JSON ToolResult: %v", err)
		}
	} else {
		if v, ok := wire.DecodeResultValue(data); ok {
			return v, nil, nil // {"value": v}, decoded without its envelope
		}
		if raw, err = wire.DecodeValue(data); err != nil {
			var se *wire.SyntaxError
			if errors.As(err, &se) && se.NotJSON {
				// Sound MessagePack, a value with no JSON form: the
				// guest's result is wrong, its instance is not (as a
				// JS or Python tool returning NaN).
				if val, ok, _ := wire.MapField(data, "value"); ok {
					if p := notJSONAt(val, "$", 0); p != "" {
						return nil, abi.Errorf(abi.InvalidResult, "the guest's result is not a JSON value: %s at %s (byte %d of its ToolResult)", se.Msg, p, se.Offset), nil
					}
				}
				if em, why := errorWithoutData(data); em != nil {
					// The error's data: dropped saying why, the guest's
					// code and message kept (they were lost for this
					// InvalidResult), as a JSON guest's.
					raw, dropped = map[string]any{"error": em}, why
					goto parse
				}
				return nil, abi.Errorf(abi.InvalidResult, "the guest's result is not a JSON value: %s (at byte %d of its ToolResult)", se.Msg, se.Offset), nil
			}
			return nil, nil, abi.Errorf(abi.ProviderError, "the guest returned a malformed MessagePack ToolResult: %v", err)
		}
	}
parse:
	v, werr, err := wire.ParseResult(raw)
	if err != nil {
		return nil, nil, abi.Errorf(abi.ProviderError, "the guest returned a malformed ToolResult: %v", err)
	}
	if werr != nil {
		// In MessagePack the code and message are bytes the guest chose;
		// read them as the JSON codec does (U+FFFD for a byte that is
		// not UTF-8).
		msg := abi.ValidText(werr.Message)
		if dropped != "" {
			msg += " (its error data was dropped: it is not a JSON value: " + dropped + ")"
		}
		return nil, &abi.ToolError{Code: abi.ErrorCode(abi.ValidText(werr.Code)), Message: msg, Data: werr.Data}, nil
	}
	return v, nil, nil
}
