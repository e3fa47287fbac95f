package wasm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
	"github.com/aios-host/aios-host/internal/busy"
	"github.com/aios-host/aios-host/internal/hostop"
	iwire "github.com/aios-host/aios-host/internal/wire"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Host import names (module "aios"), docs/abi.md §4.
const (
	opCallTool   = "call_tool"
	opSpaceRead  = "space_read"
	opSpaceWrite = "space_write"
	opComplete   = "ai_complete"
	opLog        = "log"
)

// instantiateHostModule defines the "aios" import module in a runtime shared
// by providers; each function finds its provider through the instance that
// called it (instKey in the context every guest call runs with).
// Every request/response import has the type (req_ptr i32, req_len i32) ->
// i64: the guest passes an encoded request map, the host answers with an
// encoded ToolResult it writes into memory obtained from the guest's
// aios_alloc, and returns ptr<<32 | len. When the allocator returns 0,
// traps or returns a buffer outside memory, the import returns nothing:
// the call is aborted and the instance discarded (docs/abi.md).
func (l *Loader) instantiateHostModule(ctx context.Context, rt wazero.Runtime) error {
	b := rt.NewHostModuleBuilder("aios")
	for _, op := range []string{opCallTool, opSpaceRead, opSpaceWrite, opComplete} {
		b.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
				stack[0] = l.hostCall(ctx, mod, op, uint32(stack[0]), uint32(stack[1]))
			}), []api.ValueType{i32, i32}, []api.ValueType{i64}).
			WithParameterNames("req_ptr", "req_len").
			Export(op)
	}
	b.NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(l.hostLog), []api.ValueType{i32, i32, i32}, nil).
		WithParameterNames("level", "msg_ptr", "msg_len").
		Export(opLog)
	b.NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(hostTick), nil, []api.ValueType{i32}).
		Export(tickImport)
	_, err := b.Instantiate(ctx)
	return err
}

// errInterrupted aborts a guest from aios.tick.
var errInterrupted = errors.New("interrupted by the host watchdog")

// hostTick implements aios.tick, the import the instrumentation calls every
// tickBudget loop iterations and as soon as the watchdog zeroes $tick: it
// traps an interrupted call and otherwise hands out a new budget.
func hostTick(ctx context.Context, _ api.Module, stack []uint64) {
	inst, _ := ctx.Value(instKey{}).(*instance)
	if inst != nil && inst.deadline.Load() < 0 {
		panic(errInterrupted)
	}
	if inst == nil && ctx.Err() != nil {
		// A start function past the load timeout (newInstance): there
		// is no instance yet, only the instantiation's context.
		panic(errInterrupted)
	}
	stack[0] = tickBudget
}

// hostLog implements aios.log(level, msg_ptr, msg_len): level 0 debug,
// 1 info, 2 warn, 3 error (others info). The message is UTF-8 text; it is
// cut at 4 KiB and counts against the provider's output budget.
func (l *Loader) hostLog(ctx context.Context, mod api.Module, stack []uint64) {
	level := slog.LevelInfo
	switch int32(stack[0]) {
	case 0:
		level = slog.LevelDebug
	case 2:
		level = slog.LevelWarn
	case 3:
		level = slog.LevelError
	}
	msg, ok := mod.Memory().Read(uint32(stack[1]), uint32(stack[2]))
	if !ok {
		msg = []byte(fmt.Sprintf("(aios.log called with [%d, +%d) outside guest memory)", uint32(stack[1]), uint32(stack[2])))
		level = slog.LevelWarn
	}
	inst, _ := ctx.Value(instKey{}).(*instance)
	if inst == nil {
		// A start function: no instance yet, but its provider's sink
		// (newInstance) cuts and budgets the message as any other.
		if p, _ := ctx.Value(startKey{}).(*Provider); p != nil {
			p.sink.log(level, msg, nil)
			return
		}
		if len(msg) > maxLine {
			msg = cutRunes(msg, maxLine)
		}
		l.logger.Log(ctx, level, string(msg), "guest", "log")
		return
	}
	var logger *slog.Logger
	if inst.env != nil {
		logger = inst.env.Logger()
	}
	inst.p.sink.log(level, msg, logger)
}

// hostCall serves one request/response import.
func (l *Loader) hostCall(ctx context.Context, mod api.Module, op string, ptr, n uint32) uint64 {
	inst, _ := ctx.Value(instKey{}).(*instance)
	if (inst != nil && inst.allocating) || ctx.Value(allocKey{}) != nil {
		// Answering would run aios_alloc inside aios_alloc (docs/abi.md:
		// the allocator may not make host calls).
		panic(fmt.Errorf("aios.%s called from inside aios_alloc or aios_free: the guest's allocator may not make host calls", op))
	}
	if inst == nil {
		// A start function: answered Unavailable, in the request's codec
		// when it can be told (serveHost, as for _initialize).
		terr, useJSON := abi.Errorf(abi.Unavailable, "aios.%s: host calls are only served while the guest handles aios_call", op), false
		if p, _ := ctx.Value(startKey{}).(*Provider); p != nil {
			_, terr, useJSON = p.serveHost(nil, mod.Memory(), op, ptr, n)
		}
		buf := encodeAnswer(nil, op, nil, terr, useJSON, 1<<30)
		rptr, err := allocOutsideCall(ctx, mod, uint32(len(buf)))
		if err != nil {
			panic(fmt.Errorf("aios.%s: delivering the answer: %w", op, err))
		}
		mod.Memory().Write(rptr, buf)
		return uint64(rptr)<<32 | uint64(len(buf))
	}
	p := inst.p
	value, terr, useJSON := p.serveHost(inst, mod.Memory(), op, ptr, n)

	buf := encodeAnswer(inst.hbuf[:0], op, value, terr, useJSON, p.maxMsg)
	inst.hbuf = reusable(buf)
	p.trace.Frame("out", buf)
	rptr, err := inst.alloc(uint32(len(buf)))
	if err != nil {
		// The guest's allocator trapped or lied: abort the guest call.
		panic(fmt.Errorf("aios.%s: delivering the %d-byte answer: %w", op, len(buf), err))
	}
	mod.Memory().Write(rptr, buf)
	return uint64(rptr)<<32 | uint64(len(buf))
}

// keepBuf bounds the buffers an instance keeps for its next call (hbuf,
// enc): one large answer or call must not stay in a pooled instance.
const keepBuf = 64 << 10

// reusable returns b emptied for reuse, or nil when it is too large to keep.
func reusable(b []byte) []byte {
	if cap(b) > keepBuf {
		return nil
	}
	return b[:0]
}

// readBound is the largest object whose space_read answer may fit in
// maxMsg bytes: its data is the answer's bin (MessagePack) or base64 text
// (JSON); encodeAnswer still checks the whole answer.
func readBound(maxMsg int, useJSON bool) int64 {
	if useJSON {
		return int64(maxMsg) / 4 * 3
	}
	return int64(maxMsg)
}

// encodeAnswer encodes a host call's answer, a ToolResult, in the
// request's codec (appending to dst for MessagePack), bounded by maxMsg.
func encodeAnswer(dst []byte, op string, value any, terr *abi.ToolError, useJSON bool, maxMsg int) []byte {
	var buf []byte
	if useJSON {
		var err error
		if buf, err = abi.JSON.Marshal(&abi.ToolResult{Value: value, Error: terr}); err != nil {
			buf, _ = json.Marshal(abi.ToolResult{Error: abi.Errorf(abi.Internal, "%s: encoding the answer: %v", op, err)})
		}
	} else if terr != nil {
		buf = wire.AppendError(dst, string(terr.Code), terr.Message, terr.Data)
	} else {
		var err error
		if buf, err = wire.AppendResult(dst, value); err != nil {
			buf = wire.AppendError(dst[:0], string(abi.Internal), op+": encoding the answer: "+err.Error(), nil)
		}
	}
	if len(buf) > maxMsg {
		// In the request's codec too (it was MessagePack always).
		what := op
		if m, ok := value.(map[string]any); ok && op == opSpaceRead {
			// Which object: "space_read: the answer is 100000114 bytes"
			// named neither it nor its space.
			what = fmt.Sprintf("space_read of object %v in space %q (%v bytes)", m["id"], m["space"], m["size"])
		}
		tooLarge := abi.Errorf(abi.TooLarge, "%s: the answer is %d bytes, above runtimes.wasm.max_message_bytes (%d)", what, len(buf), maxMsg)
		if useJSON {
			buf, _ = json.Marshal(abi.ToolResult{Error: tooLarge})
		} else {
			buf = wire.AppendError(buf[:0], string(tooLarge.Code), tooLarge.Message, nil)
		}
	}
	return buf
}

// allocKey marks the context of an aios_alloc call made by
// allocOutsideCall (there is no instance to carry the mark yet).
type allocKey struct{}

// allocOutsideCall serves a host call made during _initialize or
// aios_register (answered with an error, but still delivered).
func allocOutsideCall(ctx context.Context, mod api.Module, n uint32) (uint32, error) {
	f := mod.ExportedFunction(exportAlloc)
	res, err := f.Call(context.WithValue(ctx, allocKey{}, true), uint64(n))
	if err != nil {
		return 0, fmt.Errorf("aios_alloc(%d): %w", n, err)
	}
	ptr := uint32(res[0])
	if ptr == 0 || uint64(ptr)+uint64(n) > uint64(mod.Memory().Size()) {
		return 0, fmt.Errorf("aios_alloc(%d) returned %d", n, ptr)
	}
	return ptr, nil
}

// serveHost decodes a request and runs it against the call's Env.
func (p *Provider) serveHost(inst *instance, mem api.Memory, op string, ptr, n uint32) (value any, terr *abi.ToolError, useJSON bool) {
	req, ok := mem.Read(ptr, n)
	if !ok {
		return nil, abi.Errorf(abi.InvalidRequest, "aios.%s: request [%d, %d) is outside the guest's %d-byte memory", op, ptr, uint64(ptr)+uint64(n), mem.Size()), false
	}
	p.trace.Frame("in", req)
	codec, err := abi.DetectCodec(req)
	if err != nil {
		return nil, abi.Errorf(abi.InvalidRequest, "aios.%s: request in an %v", op, err), false
	}
	useJSON = codec == abi.JSON
	if len(req) > p.maxMsg {
		what := "aios." + op
		if op == opSpaceWrite {
			// Which write: "request of 73400340 bytes" named neither
			// the space nor the object's size.
			if space, size := writeRequestOf(req, useJSON); space != "" {
				what = fmt.Sprintf("aios.space_write of %d bytes to space %.80q", size, space)
			}
		}
		return nil, abi.Errorf(abi.TooLarge, "%s: request of %d bytes is above runtimes.wasm.max_message_bytes (%d)", what, len(req), p.maxMsg), useJSON
	}
	if err := iwire.CheckCost(req, codec.Name(), iwire.DecodeBudget); err != nil {
		return nil, abi.Errorf(abi.TooLarge, "aios.%s: request: %v", op, err), useJSON
	}
	var raw any
	if useJSON {
		// encoding/json reads an invalid byte or an escaped lone
		// surrogate as U+FFFD: two names would become one.
		if terr := jsonNotText(req); terr != "" {
			return nil, abi.Errorf(abi.InvalidParams, "aios.%s: the request %s", op, terr), useJSON
		}
		if err = abi.UnmarshalJSONValue(req, &raw); err != nil && json.Valid(req) {
			// Well-formed: arguments the host cannot hold (a number
			// beyond a float64's range), named by their path, as
			// MessagePack's NaN below; it was "malformed request".
			return nil, abi.Errorf(abi.InvalidParams, "aios.%s: the request is not a JSON value the host can hold: %v", op, err), useJSON
		}
	} else {
		raw, err = wire.Decoder{AllowBin: op == opSpaceWrite}.Decode(req)
	}
	if err != nil {
		var se *wire.SyntaxError
		if errors.As(err, &se) && se.NotJSON {
			// Sound MessagePack, arguments JSON cannot hold (NaN): named
			// by their path, as a JS or Python tool's arguments are.
			if p := notJSONAt(req, "$", 0); p != "" {
				return nil, abi.Errorf(abi.InvalidParams, "aios.%s: the request is not a JSON value: %s at %s (byte %d)", op, se.Msg, p, se.Offset), useJSON
			}
		}
		return nil, abi.Errorf(abi.InvalidRequest, "aios.%s: malformed request: %v", op, err), useJSON
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, abi.Errorf(abi.InvalidRequest, "aios.%s: the request is a %s, want a map", op, wire.TypeName(raw)), useJSON
	}
	if inst != nil && inst.cur != nil && inst.env == nil {
		// In a call, but the provider was called without an abi.Env (an
		// embedder calling it directly, not through a host).
		return nil, abi.Errorf(abi.Unavailable, "aios.%s: no host services for this call (the provider was called with a nil abi.Env)", op), useJSON
	}
	if inst == nil || inst.env == nil {
		return nil, abi.Errorf(abi.Unavailable, "aios.%s: host calls are only served while the guest handles aios_call", op), useJSON
	}
	ctx, env := inst.callCtx, inst.env
	// A field of another type, or a required one absent, is a malformed
	// request; an empty string is the tool's argument and goes to the
	// host, which refuses an empty tool name, id or space as it refuses
	// them from every runtime (InvalidParams, saying why): the guest was
	// told InvalidRequest "request needs a non-empty string" instead.
	str := func(key string, required bool) (string, *abi.ToolError) {
		v, present := m[key]
		s, ok := v.(string)
		if (present && !ok && v != nil) || (required && !ok) {
			return "", abi.Errorf(abi.InvalidRequest, "aios.%s: request needs a string %q", op, key)
		}
		return s, nil
	}
	switch op {
	case opCallTool:
		tool, terr := str("tool", true)
		if terr != nil {
			return nil, terr, useJSON
		}
		version, terr := str("version", false)
		if terr != nil {
			return nil, terr, useJSON
		}
		params := m["params"]
		if params == nil {
			// A call without params (c.CallTool("list", nil)) is a call
			// with {}, as from JS, Python and components: null failed
			// every tool whose schema is an object.
			params = map[string]any{}
		}
		before := inst.deadline.Load()
		v, err := env.CallTool(context.WithValue(ctx, nestKey{p}, busy.NewChain()), tool, version, params)
		if before != 0 && inst.deadline.Load() != before ||
			before == 0 && inst.cur != nil && (ctx.Err() != nil || !inst.cur.Deadline.IsZero() && !time.Now().Before(inst.cur.Deadline)) {
			// Interrupted (deadline, cancel) while it waited (wazero's
			// watchdog swapped the deadline; the wasmtime engine, which
			// keeps no deadline here, sees the call's end): the call's
			// error names what it waited for.
			inst.awaited = fmt.Sprintf("call_tool(%.64q)", tool)
		}
		te := abi.AsToolError(err, abi.ProviderError)
		inst.notePassedCrash(te)
		return v, te, useJSON
	case opSpaceRead:
		space, terr := str("space", false)
		if terr != nil {
			return nil, terr, useJSON
		}
		id, terr := str("id", true)
		if terr != nil {
			return nil, terr, useJSON
		}
		var obj abi.Object
		if br, ok := env.(abi.BoundedSpaceReader); ok {
			// An object whose answer cannot pass max_message_bytes is
			// refused before the host reads it (it read and hashed up to
			// max_object_bytes, then encoded an answer to throw away).
			obj, err = br.SpaceReadAtMost(ctx, space, id, readBound(p.maxMsg, useJSON))
			if te, ok := err.(*abi.ToolError); ok && te.Code == abi.TooLarge && te.Data != nil {
				if d, _ := te.Data.(map[string]any); d != nil && d["limit"] != nil {
					return nil, abi.Errorf(abi.TooLarge, "space_read of object %s in space %q (%v bytes): the answer would be above runtimes.wasm.max_message_bytes (%d)", id, d["space"], d["size"], p.maxMsg), useJSON
				}
			}
		} else {
			obj, err = env.SpaceRead(ctx, space, id)
		}
		if err != nil {
			return nil, abi.AsToolError(err, abi.ProviderError), useJSON
		}
		return map[string]any{"space": obj.Space, "id": obj.ID, "size": int64(len(obj.Data)), "data": obj.Data}, nil, useJSON
	case opSpaceWrite:
		space, terr := str("space", true)
		if terr != nil {
			return nil, terr, useJSON
		}
		var data []byte
		switch d := m["data"].(type) {
		case []byte:
			data = d
		case string:
			if useJSON {
				if data, err = base64.StdEncoding.DecodeString(d); err != nil {
					return nil, abi.Errorf(abi.InvalidRequest, "aios.space_write: \"data\" is not standard base64: %v", err), useJSON
				}
			} else {
				data = []byte(d)
			}
		default:
			return nil, abi.Errorf(abi.InvalidRequest, "aios.space_write: request needs \"data\" (bin in MessagePack, base64 string in JSON)"), useJSON
		}
		obj, err := env.SpaceWrite(ctx, space, data)
		if err != nil {
			return nil, abi.AsToolError(err, abi.ProviderError), useJSON
		}
		return map[string]any{"space": obj.Space, "id": obj.ID}, nil, useJSON
	case opComplete:
		var cr abi.CompleteRequest
		var terr *abi.ToolError
		if cr.Prompt, terr = str("prompt", true); terr != nil {
			return nil, terr, useJSON
		}
		// Optional fields of the wrong type are refused, as call_tool's
		// "version" is (they were silently dropped: a guest asking for
		// max_tokens "100" got the provider's default without a word).
		if cr.System, terr = str("system", false); terr != nil {
			return nil, terr, useJSON
		}
		if cr.Model, terr = str("model", false); terr != nil {
			return nil, terr, useJSON
		}
		if mt, present := m["max_tokens"]; present && mt != nil {
			var n float64
			switch x := mt.(type) {
			case int64:
				n = float64(x)
			case uint64:
				n = float64(x)
			case float64:
				n = x
			default:
				return nil, abi.Errorf(abi.InvalidRequest, "aios.ai_complete: \"max_tokens\" must be an integer, not a %s", wire.TypeName(mt)), useJSON
			}
			if n != float64(int64(n)) {
				// Of another type (docs/abi.md: field types are checked).
				return nil, abi.Errorf(abi.InvalidRequest, "aios.ai_complete: \"max_tokens\" must be an integer from 0 to 2147483647, not %v", mt), useJSON
			}
			if n < 0 || n > 1<<31-1 {
				// An integer out of range is the argument's fault, as
				// from every other runtime (docs/pipeline.md: InvalidParams
				// whatever the runtime); it was InvalidRequest here.
				return nil, abi.Errorf(abi.InvalidParams, "aios.ai_complete: \"max_tokens\" must be an integer from 0 to 2147483647, not %v", mt), useJSON
			}
			cr.MaxTokens = int(n)
		}
		switch t := m["temperature"].(type) {
		case nil:
		case float64:
			cr.Temperature = &t
		case int64:
			f := float64(t)
			cr.Temperature = &f
		case uint64:
			f := float64(t)
			cr.Temperature = &f
		default:
			return nil, abi.Errorf(abi.InvalidRequest, "aios.ai_complete: \"temperature\" must be a number, not a %s", wire.TypeName(t)), useJSON
		}
		if cr.Stop, terr = hostop.StopSequences(m["stop"], abi.InvalidRequest, "aios.ai_complete"); terr != nil {
			return nil, terr, useJSON
		}
		resp, err := env.Complete(ctx, cr)
		if err != nil {
			return nil, abi.AsToolError(err, abi.ProviderError), useJSON
		}
		return hostop.CompleteResult(resp), nil, useJSON
	}
	return nil, abi.Errorf(abi.Internal, "aios.%s: unknown host call", op), useJSON
}

// writeRequestOf is the space a space_write request names and the size of
// its data, read without decoding the request (it is over the message
// bound): "" when it names no space or its data cannot be told.
func writeRequestOf(req []byte, useJSON bool) (space string, size int64) {
	if !useJSON {
		v, ok, err := wire.MapField(req, "space")
		if !ok || err != nil {
			return "", 0
		}
		if space, err = wire.ReadString(v); err != nil {
			return "", 0
		}
		d, ok, err := wire.MapField(req, "data")
		if !ok || err != nil {
			return "", 0
		}
		// A bin (MapField checked its length) is not copied to be measured.
		if len(d) > 0 && d[0] >= 0xc4 && d[0] <= 0xc6 {
			return space, int64(len(d) - 1 - 1<<(d[0]-0xc4))
		}
		if str, err := wire.StringBytes(d); err == nil {
			return space, int64(len(str))
		}
		return "", 0
	}
	dec := json.NewDecoder(bytes.NewReader(req))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", 0
	}
	size = -1
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", 0
		}
		if key != "space" && key != "data" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return "", 0
			}
			continue
		}
		t, err := dec.Token()
		s, ok := t.(string)
		if err != nil || !ok {
			return "", 0
		}
		if key == "space" {
			space = s
		} else if len(s)%4 == 0 { // base64, "=" padded
			size = int64(len(s)/4*3 - (len(s) - len(strings.TrimRight(s, "="))))
		}
	}
	if size < 0 {
		return "", 0
	}
	return space, size
}
