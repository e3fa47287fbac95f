package python

import (
	"context"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/hostop"
)

// Host operations a worker may ask for while it serves a call: those of
// internal/hostop (call_tool, space_read, space_write, ai_complete), log
// (served here, within the worker's ctx.log budget, see worker.logLine),
// and one of Python's own:
//
//	net_connect {host, port, timeout?}             → {host, port, remote}, and a connected
//	                                                 socket on the broker fd (netbroker.go)

// serveHost answers one host_call of the call in flight c (nil when none),
// holding a slot of w.hostSlots (taken by the reader) until its work is
// done.
func (w *worker) serveHost(c *inflight, hid string, hc *abi.HostCall) {
	if hc != nil && hc.Op == "net_connect" {
		defer w.hostSlots.Release() // the answer goes with the socket
		w.netConnect(c, hid, hc)
		return
	}
	var res *abi.ToolResult
	switch {
	case hc != nil && hc.Op == "log":
		// The same budget and level check as log envelopes (ctx.log).
		args, _ := hc.Args.(map[string]any)
		level, _ := args["level"].(string)
		msg, _ := args["message"].(string)
		w.logLine(hc.CallID, level, msg)
		res = &abi.ToolResult{CallID: hc.CallID}
	case c != nil && hc != nil && hc.CallID == c.id:
		name := hostOpName(hc)
		c.hostBegin(name)
		defer c.hostEnd(name) // (after the answer is sent)
		res = hostop.Answer(context.WithValue(c.ctx, nestKey{w.p}, true), c.env, hid, hc, true, 0)
	default:
		res = hostop.Answer(context.Background(), nil, hid, hc, false, 0)
	}
	w.hostSlots.Release()
	if err := w.send(&abi.Envelope{V: abi.FormatVersion, Kind: abi.KindHostResult, ID: hid, Result: res}); err != nil {
		w.p.log.Debug("host_result not delivered", "pid", w.pid, "err", err)
	}
}

// hostOp performs hc for the call in flight c (the tests call it).
func hostOp(c *inflight, hc *abi.HostCall) (any, error) { return hostop.Do(c.ctx, c.env, hc) }

// refuseHost answers a host call whose args are not JSON values (a
// MessagePack frame with bytes, a NaN, a key that is not a string):
// InvalidParams, as the SDK's JSON encoder refuses such args in the tool.
func (w *worker) refuseHost(ve *valueError) {
	res := &abi.ToolResult{CallID: ve.host.CallID, Error: abi.Errorf(abi.InvalidParams, "%s: the arguments are not JSON values: %v", ve.host.Op, ve.err)}
	if err := w.send(&abi.Envelope{V: abi.FormatVersion, Kind: abi.KindHostResult, ID: ve.id, Result: res}); err != nil {
		w.p.log.Debug("host_result not delivered", "pid", w.pid, "err", err)
	}
}
