// Package hostop serves the host operations a provider running in a worker
// process asks for while it serves a call (abi.HostCall), for every runtime
// whose providers run out of process (Python workers, isolated JS workers).
//
// Arguments and results are generic maps. Bytes travel as standard base64
// strings, so the messages stay JSON values whichever codec carries them:
//
//	call_tool   {tool, version?, params}           → the tool's result
//	space_read  {id, space?}                       → {space, id, data}
//	space_write {space, data}                      → {space, id}
//	ai_complete {prompt, system?, max_tokens?, temperature?, model?, stop?} → {text, model, finish_reason?}
//	log         {level, message}                   → null
package hostop

import (
	"context"
	"encoding/base64"
	"log/slog"
	"math"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

// Answer is the host_result for host call hid: hc performed for the call
// being served with ctx and env, or an error when the message has no host
// call, names a call the worker is not serving (serving false), or that
// call has no host services. maxRead > 0 bounds the object a space_read
// reads (a runtime whose answers travel in frames of a bounded size),
// through abi.BoundedSpaceReader when env is one.
func Answer(ctx context.Context, env abi.Env, hid string, hc *abi.HostCall, serving bool, maxRead int64) *abi.ToolResult {
	res := &abi.ToolResult{}
	var v any
	var err error
	switch {
	case hc == nil:
		err = abi.Errorf(abi.InvalidRequest, "host_call %s has no host field", hid)
	case !serving:
		// Said to the tool's author: what reaches here is mostly a ctx
		// kept from an ended call (the message named only ids).
		err = abi.Errorf(abi.InvalidRequest, "host_call %s (%s) names call %q, which this worker is not serving: that call has ended (or was never this worker's); "+
			"a ctx acts only while its call runs, so a ctx kept from an earlier call, or a thread that call started, cannot act in a later one: use the ctx the current call received", hid, hc.Op, hc.CallID)
	case env == nil:
		err = abi.Errorf(abi.Unavailable, "host_call %s: no host services for this call", hc.Op)
	default:
		res.CallID = hc.CallID
		v, err = do(ctx, env, hc, maxRead)
	}
	if err != nil {
		res.Error = abi.AsToolError(err, abi.ProviderError)
	} else {
		res.Value = v
	}
	return res
}

// Do performs hc for the call whose environment is env.
func Do(ctx context.Context, env abi.Env, hc *abi.HostCall) (any, error) {
	return do(ctx, env, hc, 0)
}

func do(ctx context.Context, env abi.Env, hc *abi.HostCall, maxRead int64) (any, error) {
	args, _ := hc.Args.(map[string]any)
	// An argument of another type is refused, not read as "": a Python
	// tool's ctx.ai.complete(123) reached the backend with an empty
	// prompt, and ctx.spaces.read(oid, 5) searched every readable space.
	var bad *abi.ToolError
	str := func(k string) string {
		switch v := args[k].(type) {
		case nil:
		case string:
			return v
		default:
			if bad == nil {
				bad = abi.Errorf(abi.InvalidParams, "%s: %q must be a string, not a %s", hc.Op, k, wire.TypeName(v))
			}
		}
		return ""
	}
	// need is str of an argument that must be given: null (Python's None)
	// read as "" was refused as "empty space name", naming neither the
	// argument nor what it was (found by p175).
	need := func(k string) string {
		if v, ok := args[k]; ok && v == nil && bad == nil {
			bad = abi.Errorf(abi.InvalidParams, "%s: %q must be a string, not null", hc.Op, k)
		}
		return str(k)
	}
	switch hc.Op {
	case "call_tool":
		tool, version := str("tool"), str("version")
		if bad != nil {
			return nil, bad
		}
		if tool == "" {
			return nil, abi.Errorf(abi.InvalidParams, "call_tool: no tool name")
		}
		params := args["params"]
		if params == nil {
			params = map[string]any{}
		}
		return env.CallTool(ctx, tool, version, params)
	case "space_read":
		space, id := str("space"), need("id")
		if bad != nil {
			return nil, bad
		}
		var obj abi.Object
		var err error
		if br, ok := env.(abi.BoundedSpaceReader); ok && maxRead > 0 {
			obj, err = br.SpaceReadAtMost(ctx, space, id, maxRead)
		} else {
			obj, err = env.SpaceRead(ctx, space, id)
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"space": obj.Space, "id": obj.ID, "data": base64.StdEncoding.EncodeToString(obj.Data)}, nil
	case "space_write":
		space, b64 := need("space"), need("data")
		if bad != nil {
			return nil, bad
		}
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, abi.Errorf(abi.InvalidParams, "space_write: data is not base64: %v", err)
		}
		obj, err := env.SpaceWrite(ctx, space, data)
		if err != nil {
			return nil, err
		}
		return map[string]any{"space": obj.Space, "id": obj.ID}, nil
	case "ai_complete":
		// The prompt must be given: a Python tool's complete(None) was
		// read as "", and the backend asked to complete nothing on the
		// caller's inference.rate (JS and WASM refuse it).
		if _, ok := args["prompt"]; !ok && bad == nil {
			bad = abi.Errorf(abi.InvalidParams, "ai_complete: \"prompt\" is missing")
		}
		req := abi.CompleteRequest{Prompt: need("prompt"), System: str("system"), Model: str("model")}
		if bad != nil {
			return nil, bad
		}
		num := func(k string) (float64, bool, *abi.ToolError) {
			switch x := args[k].(type) {
			case nil:
				return 0, false, nil
			case int64:
				return float64(x), true, nil
			case uint64:
				return float64(x), true, nil
			case float64:
				return x, true, nil
			default:
				return 0, false, abi.Errorf(abi.InvalidParams, "ai_complete: %q must be a number, not a %s", k, wire.TypeName(x))
			}
		}
		n, ok, terr := num("max_tokens")
		if terr != nil {
			return nil, terr
		}
		if ok {
			if n != math.Trunc(n) || n < 0 || n > math.MaxInt32 {
				return nil, abi.Errorf(abi.InvalidParams, "ai_complete: \"max_tokens\" must be an integer from 0 to %d, not %v", math.MaxInt32, args["max_tokens"])
			}
			req.MaxTokens = int(n)
		}
		temp, ok, terr := num("temperature")
		if terr != nil {
			return nil, terr
		}
		if ok {
			req.Temperature = &temp
		}
		if req.Stop, terr = StopSequences(args["stop"], abi.InvalidParams, "ai_complete"); terr != nil {
			return nil, terr
		}
		resp, err := env.Complete(ctx, req)
		if err != nil {
			return nil, err
		}
		return CompleteResult(resp), nil
	case "log":
		env.Logger().Log(ctx, Level(str("level")), str("message"))
		return nil, nil
	}
	return nil, abi.Errorf(abi.InvalidRequest, "unknown host operation %q", hc.Op)
}

// Level maps a log level name (debug, info, warn, error) to slog's; any
// other name is info.
func Level(name string) slog.Level {
	switch name {
	case "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// StopSequences reads ai_complete's "stop" (chat-completions' stop
// sequences): none when v is nil, one when it is a string, several when
// an array of strings. Another value is refused with code, naming op.
func StopSequences(v any, code abi.ErrorCode, op string) ([]string, *abi.ToolError) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{x}, nil
	case []string:
		return x, nil
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, abi.Errorf(code, "%s: \"stop\"[%d] must be a string, not a %s", op, i, wire.TypeName(e))
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, abi.Errorf(code, "%s: \"stop\" must be a string or an array of strings, not a %s", op, wire.TypeName(v))
}

// CompleteResult is ai_complete's answer: {text, model}, and finish_reason
// when the backend gave one ("length": the answer was cut at max_tokens),
// which a tool could not learn before (TestCompletionFinishReason).
func CompleteResult(resp abi.CompleteResponse) map[string]any {
	m := map[string]any{"text": resp.Text, "model": resp.Model}
	if resp.FinishReason != "" {
		m["finish_reason"] = resp.FinishReason
	}
	return m
}
