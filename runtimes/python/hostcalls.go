package python

import (
	"context"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/hostop"
)

// Host operations a worker may ask for while it serves a call: those of
// internal/hostop (call_tool, space_read, space_write, ai_complete, log),
// and one of Python's own:
//
//	net_connect {host, port}                       → {host, port, remote}, and a connected
//	                                                 socket on the broker fd (netbroker.go)

// serveHost answers one host_call of the call in flight c (nil when none).
func (w *worker) serveHost(c *inflight, hid string, hc *abi.HostCall) {
	if hc != nil && hc.Op == "net_connect" {
		w.netConnect(c, hid, hc)
		return
	}
	var res *abi.ToolResult
	if c != nil && hc != nil && hc.CallID == c.id {
		res = hostop.Answer(c.ctx, c.env, hid, hc, true)
	} else {
		res = hostop.Answer(context.Background(), nil, hid, hc, false)
	}
	if err := w.send(&abi.Envelope{V: abi.FormatVersion, Kind: abi.KindHostResult, ID: hid, Result: res}); err != nil {
		w.p.log.Debug("host_result not delivered", "pid", w.pid, "err", err)
	}
}

// hostOp performs hc for the call in flight c (the tests call it).
func hostOp(c *inflight, hc *abi.HostCall) (any, error) { return hostop.Do(c.ctx, c.env, hc) }
