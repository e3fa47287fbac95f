package python

import (
	"encoding/base64"

	"github.com/aios-host/aios-host/abi"
)

// Host operations a worker may ask for while it serves a call. Arguments
// and results are generic maps; bytes travel as standard base64 strings
// because the worker speaks JSON:
//
//	call_tool   {tool, version?, params}           → the tool's result
//	space_read  {id, space?}                       → {space, id, data}
//	space_write {space, data}                      → {space, id}
//	ai_complete {prompt, system?, max_tokens?, temperature?, model?} → {text, model}
//	log         {level, message}                   → null
//	net_connect {host, port}                       → {host, port, remote}, and a connected
//	                                                 socket on the broker fd (netbroker.go)

// serveHost answers one host_call of the call in flight c (nil when none).
func (w *worker) serveHost(c *inflight, hid string, hc *abi.HostCall) {
	if hc != nil && hc.Op == "net_connect" {
		w.netConnect(c, hid, hc)
		return
	}
	res := &abi.ToolResult{}
	var v any
	var err error
	switch {
	case hc == nil:
		err = abi.Errorf(abi.InvalidRequest, "host_call %s has no host field", hid)
	case c == nil || hc.CallID != c.id:
		err = abi.Errorf(abi.InvalidRequest, "host_call %s (%s) names call %q, which this worker is not serving", hid, hc.Op, hc.CallID)
	case c.env == nil:
		err = abi.Errorf(abi.Unavailable, "host_call %s: no host services for this call", hc.Op)
	default:
		res.CallID = hc.CallID
		v, err = hostOp(c, hc)
	}
	if err != nil {
		res.Error = abi.AsToolError(err, abi.ProviderError)
	} else {
		res.Value = v
	}
	if err := w.send(&abi.Envelope{V: abi.FormatVersion, Kind: abi.KindHostResult, ID: hid, Result: res}); err != nil {
		w.p.log.Debug("host_result not delivered", "pid", w.pid, "err", err)
	}
}

func hostOp(c *inflight, hc *abi.HostCall) (any, error) {
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
		return c.env.CallTool(c.ctx, tool, str("version"), params)
	case "space_read":
		obj, err := c.env.SpaceRead(c.ctx, str("space"), str("id"))
		if err != nil {
			return nil, err
		}
		return map[string]any{"space": obj.Space, "id": obj.ID, "data": base64.StdEncoding.EncodeToString(obj.Data)}, nil
	case "space_write":
		data, err := base64.StdEncoding.DecodeString(str("data"))
		if err != nil {
			return nil, abi.Errorf(abi.InvalidParams, "space_write: data is not base64: %v", err)
		}
		obj, err := c.env.SpaceWrite(c.ctx, str("space"), data)
		if err != nil {
			return nil, err
		}
		return map[string]any{"space": obj.Space, "id": obj.ID}, nil
	case "ai_complete":
		req := abi.CompleteRequest{Prompt: str("prompt"), System: str("system"), Model: str("model")}
		if n, ok := args["max_tokens"].(int64); ok {
			req.MaxTokens = int(n)
		}
		if t, ok := args["temperature"].(float64); ok {
			req.Temperature = &t
		}
		resp, err := c.env.Complete(c.ctx, req)
		if err != nil {
			return nil, err
		}
		return map[string]any{"text": resp.Text, "model": resp.Model}, nil
	case "log":
		c.env.Logger().Info(str("message"), "level", str("level"))
		return nil, nil
	}
	return nil, abi.Errorf(abi.InvalidRequest, "unknown host operation %q", hc.Op)
}
