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
//	ai_complete {prompt, system?, max_tokens?, temperature?, model?} → {text, model}
//	log         {level, message}                   → null
package hostop

import (
	"context"
	"encoding/base64"
	"log/slog"

	"github.com/aios-host/aios-host/abi"
)

// Answer is the host_result for host call hid: hc performed for the call
// being served with ctx and env, or an error when the message has no host
// call, names a call the worker is not serving (serving false), or that
// call has no host services.
func Answer(ctx context.Context, env abi.Env, hid string, hc *abi.HostCall, serving bool) *abi.ToolResult {
	res := &abi.ToolResult{}
	var v any
	var err error
	switch {
	case hc == nil:
		err = abi.Errorf(abi.InvalidRequest, "host_call %s has no host field", hid)
	case !serving:
		err = abi.Errorf(abi.InvalidRequest, "host_call %s (%s) names call %q, which this worker is not serving", hid, hc.Op, hc.CallID)
	case env == nil:
		err = abi.Errorf(abi.Unavailable, "host_call %s: no host services for this call", hc.Op)
	default:
		res.CallID = hc.CallID
		v, err = Do(ctx, env, hc)
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
	args, _ := hc.Args.(map[string]any)
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch hc.Op {
	case "call_tool":
		tool := str("tool")
		if tool == "" {
			return nil, abi.Errorf(abi.InvalidParams, "call_tool: no tool name")
		}
		params := args["params"]
		if params == nil {
			params = map[string]any{}
		}
		return env.CallTool(ctx, tool, str("version"), params)
	case "space_read":
		obj, err := env.SpaceRead(ctx, str("space"), str("id"))
		if err != nil {
			return nil, err
		}
		return map[string]any{"space": obj.Space, "id": obj.ID, "data": base64.StdEncoding.EncodeToString(obj.Data)}, nil
	case "space_write":
		data, err := base64.StdEncoding.DecodeString(str("data"))
		if err != nil {
			return nil, abi.Errorf(abi.InvalidParams, "space_write: data is not base64: %v", err)
		}
		obj, err := env.SpaceWrite(ctx, str("space"), data)
		if err != nil {
			return nil, err
		}
		return map[string]any{"space": obj.Space, "id": obj.ID}, nil
	case "ai_complete":
		req := abi.CompleteRequest{Prompt: str("prompt"), System: str("system"), Model: str("model")}
		if n, ok := args["max_tokens"].(int64); ok {
			req.MaxTokens = int(n)
		}
		switch t := args["temperature"].(type) {
		case float64:
			req.Temperature = &t
		case int64:
			f := float64(t)
			req.Temperature = &f
		}
		resp, err := env.Complete(ctx, req)
		if err != nil {
			return nil, err
		}
		return map[string]any{"text": resp.Text, "model": resp.Model}, nil
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
