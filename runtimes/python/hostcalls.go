package python

import (
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

func hostOp(c *inflight, hc *abi.HostCall) (any, error) { return hostop.Do(c.ctx, c.env, hc) }
