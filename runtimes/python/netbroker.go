package python

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// Network(host pattern) without the whole network. A provider that holds
// Network capabilities with host patterns (say Network(api.example.com) or
// Network(*.example.com)) but not Network(*) gets workers without network
// of their own: the same seccomp rule (socket(2) fails), empty network
// namespace and Landlock TCP rules as a provider without Network. A worker
// reaches the network only by asking the host: the host_call
//
//	net_connect {host, port, timeout?}
//
// is checked against the patterns (host names compared lower-case; any
// port) and the caller's grants (abi.Checker), dialled by the host (TCP, the host resolves the name, bounded by
// the call's deadline), and the connected socket is passed to the worker
// over a unix socket pair (fd 4, SCM_RIGHTS), in the same order as the
// host_results. The SDK routes socket.create_connection (which urllib,
// http.client, ftplib, smtplib, … use) through it. The worker cannot open a
// socket itself, so it cannot reach any other host; a connected socket
// cannot be re-pointed: connect(2) fails (the seccomp rule; connect with
// AF_UNSPEC would disconnect it, and Landlock refuses the next connect
// only from ABI 4). A brokered
// connection is the call's: when the call ends the host shuts it down
// (shutdown(2) of its own copy ends the socket the worker holds too), so a
// socket kept by the worker serves no later call, whose caller may not
// hold Network(host).

// dialTimeout bounds a brokered connect when the call has no deadline.
const dialTimeout = 30 * time.Second

// netConnect serves a net_connect host call of the call in flight c.
func (w *worker) netConnect(c *inflight, hid string, hc *abi.HostCall) {
	conn, value, err := w.dialFor(c, hc)
	res := &abi.ToolResult{CallID: hc.CallID}
	if err != nil {
		res.Error = abi.AsToolError(err, abi.ProviderError)
	} else {
		res.Value = value
	}
	if conn != nil {
		if kerr := c.keep(conn); kerr != nil {
			_ = conn.Close()
			conn, res.Value, res.Error = nil, nil, kerr
		}
	}
	w.brokerMu.Lock()
	defer w.brokerMu.Unlock()
	if conn != nil {
		if serr := w.passSocket(conn); serr != nil {
			res.Value = nil
			res.Error = abi.Errorf(abi.ProviderError, "net_connect: passing the socket to the worker: %v", serr)
		}
	}
	if err := w.send(&abi.Envelope{V: abi.FormatVersion, Kind: abi.KindHostResult, ID: hid, Result: res}); err != nil {
		w.p.log.Debug("host_result not delivered", "pid", w.pid, "err", err)
	}
}

// dialFor checks and dials a net_connect request.
func (w *worker) dialFor(c *inflight, hc *abi.HostCall) (*net.TCPConn, any, error) {
	if c == nil || hc.CallID != c.id {
		return nil, nil, abi.Errorf(abi.InvalidRequest, "net_connect names call %q, which this worker is not serving", hc.CallID)
	}
	args, _ := hc.Args.(map[string]any)
	host, _ := args["host"].(string)
	if w.broker == nil || len(w.p.netHosts) == 0 {
		te := abi.Errorf(abi.CapabilityDenied, "net_connect: provider %s holds no Network(host) capability", w.p.reg.Provider.ID)
		if h, err := abi.NetworkHost(host); err == nil {
			te.Message += " (asked for " + h + ")"
		}
		return nil, nil, noted(c, te)
	}
	port, _ := args["port"].(int64)
	if port < 1 || port > 65535 {
		return nil, nil, abi.Errorf(abi.InvalidParams, "net_connect: want {host: name or address, port: 1..65535}, got %v", hc.Args)
	}
	host, err := abi.NetworkHost(host)
	if err != nil {
		return nil, nil, abi.Errorf(abi.InvalidParams, "net_connect: %v", err)
	}
	want := abi.Capability{Kind: abi.CapNetwork, Arg: host, HasArg: true}
	if !w.p.netHosts.Allows(want) {
		return nil, nil, noted(c, &abi.ToolError{Code: abi.CapabilityDenied,
			Message: "provider " + w.p.reg.Provider.ID + " lacks " + want.String() + " (it holds Network for " + strings.Join(w.p.NetworkHosts(), ", ") + ")",
			Data:    map[string]any{"missing": want.String()}})
	}
	// The caller's grants count too, as for every host service: a tool
	// reaches no host its caller could not (the host's Env checks the
	// call's effective grants ∩ the provider's).
	if ck, ok := c.env.(abi.Checker); ok {
		if err := ck.Check(want); err != nil {
			return nil, nil, abi.AsToolError(err, abi.CapabilityDenied)
		}
	}
	ctx := c.ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, dialTimeout)
		defer cancel()
	}
	// create_connection's timeout (seconds), when the tool gave one: the
	// connect's own bound; without it a host that did not answer held the
	// tool until the call's deadline, which then killed its worker.
	var timeout time.Duration
	switch t := args["timeout"].(type) {
	case nil:
	case float64, int64:
		secs, _ := t.(float64)
		if i, ok := t.(int64); ok {
			secs = float64(i)
		}
		if !(secs >= 0 && secs <= 1e6) {
			return nil, nil, abi.Errorf(abi.InvalidParams, "net_connect: timeout must be from 0 to 1e6 seconds, got %v", t)
		}
		timeout = max(time.Duration(secs*float64(time.Second)), time.Millisecond)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	default:
		return nil, nil, abi.Errorf(abi.InvalidParams, "net_connect: timeout must be a number of seconds, got %v", t)
	}
	addr := net.JoinHostPort(host, strconv.FormatInt(port, 10))
	var d net.Dialer
	if _, err := netip.ParseAddr(host); err != nil && host != "localhost" && !strings.HasSuffix(host, ".localhost") {
		d.ControlContext = func(_ context.Context, _, address string, _ syscall.RawConn) error {
			return namedLocal(host, address)
		}
	}
	conn, err := d.DialContext(ctx, "tcp", addr)
	var le *localAddrError
	if errors.As(err, &le) {
		return nil, nil, noted(c, &abi.ToolError{Code: abi.CapabilityDenied, Message: "net_connect " + addr + ": " + le.Error(),
			Data: map[string]any{"missing": abi.Capability{Kind: abi.CapNetwork, Arg: le.addr.String(), HasArg: true}.String()}})
	}
	if err != nil {
		// The dialer's own deadline (the context's) may fire before the
		// context says it is done: its i/o timeout counts too.
		var ne net.Error
		if timeout > 0 && c.ctx.Err() == nil && (ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout()) {
			return nil, nil, abi.Errorf(abi.Timeout, "net_connect %s: no connection within the timeout of %v", addr, timeout)
		}
		te := abi.Errorf(abi.ProviderError, "net_connect %s: %v", addr, err)
		// The dial's errno (ECONNREFUSED, EHOSTUNREACH, …), from which the
		// SDK raises OSError(errno, …) as Python's own connect does:
		// ConnectionRefusedError, which a tool catches (it was a bare
		// OSError: TestNetworkConnectRefusedIsConnectionRefusedError).
		// A name that did not resolve is data.dns, "notfound" or "again",
		// from which the SDK raises socket.gaierror as Python's resolver
		// does (TestNetworkUnknownHostIsGaierror).
		var en syscall.Errno
		var de *net.DNSError
		switch {
		case errors.As(err, &de) && de.IsNotFound:
			te.Data = map[string]any{"dns": "notfound"}
		case errors.As(err, &de):
			te.Data = map[string]any{"dns": "again"}
		case errors.As(err, &en):
			te.Data = map[string]any{"errno": int64(en)}
		}
		return nil, nil, te
	}
	return conn.(*net.TCPConn), map[string]any{"host": host, "port": port, "remote": conn.RemoteAddr().String()}, nil
}

// noted hands te, a refused net_connect, to the host for the call's audit
// record (abi.RefusalNoter), as the host records every host service it
// refuses itself: a tool that caught the refusal left no trace of the
// host it tried. It returns te.
func noted(c *inflight, te *abi.ToolError) *abi.ToolError {
	if n, ok := c.env.(abi.RefusalNoter); ok {
		n.NoteRefused(te)
	}
	return te
}

// localAddrError: a host name resolved to an address of the host's own
// machine (or its link), or of a cloud's metadata service.
type localAddrError struct {
	host string
	addr netip.Addr
}

func (e *localAddrError) Error() string {
	or := ""
	if e.addr.IsLoopback() {
		or = " (or connect to localhost under Network(localhost))"
	}
	what := "an address of this machine or its link (loopback, unspecified or link-local)"
	if metadataAddrs[e.addr] {
		what = "the address of a cloud's instance metadata service"
	}
	return e.host + " resolves to " + e.addr.String() + ", " + what + ": a Network(host name) grant reaches another machine; grant Network(" + e.addr.String() + ")" + or + " to reach it"
}

// metadataAddrs are the clouds' instance metadata services that are not
// link-local, and so not refused as such: AWS's IPv6 endpoint (a unique
// local address) and Alibaba Cloud's (in the shared address space). They
// hand out the instance's credentials to whoever asks from it.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("fd00:ec2::254"):   true,
	netip.MustParseAddr("100.100.100.200"): true,
}

// namedLocal refuses the address a host name resolved to when it is
// loopback, unspecified or link-local, or a cloud's metadata service
// (metadataAddrs). Network(api.example.com) names another machine, and
// whoever controls that name's DNS (the tool's vendor, a rebinding
// attacker) could otherwise point it at 127.0.0.1 and reach the services
// of the host's own machine (the host's /metrics, a local inference
// server, a database bound to loopback) or a cloud's metadata service
// (169.254.169.254, fd00:ec2::254: only the first was refused). The
// address itself, or localhost, granted as such, reaches them.
func namedLocal(host, address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return nil
	}
	a := ap.Addr().Unmap()
	if a.IsLoopback() || a.IsUnspecified() || a.IsLinkLocalUnicast() || metadataAddrs[a] {
		return &localAddrError{host: host, addr: a}
	}
	return nil
}

// passSocket sends a duplicate of conn's socket to the worker (the
// broker socket is blocking; a message of one byte never fills it).
func (w *worker) passSocket(conn *net.TCPConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if cerr := raw.Control(func(fd uintptr) {
		serr = sendFD(w.broker, fd)
	}); cerr != nil {
		return cerr
	}
	return serr
}

// maxCallConns bounds the brokered connections a call holds open at once
// (each is a file descriptor of the host's until the call ends).
const maxCallConns = 512

// keep records conn as the call's, to be shut down when it ends: nil, or
// why not (the call has ended, or holds maxCallConns connections). The
// host's copies of connections that have ended both ways (the tool closed
// its socket, the SDK shutting it down first, and the peer closed too)
// are let go first.
func (c *inflight) keep(conn *net.TCPConn) *abi.ToolError {
	c.connMu.Lock()
	defer c.connMu.Unlock()
	if c.ended {
		return abi.Errorf(abi.Unavailable, "net_connect: call %s ended while connecting", c.id)
	}
	if len(c.conns) >= maxCallConns {
		live := c.conns[:0]
		for _, k := range c.conns {
			if connEnded(k) {
				_ = k.Close()
			} else {
				live = append(live, k)
			}
		}
		clear(c.conns[len(live):])
		c.conns = live
	}
	if len(c.conns) >= maxCallConns {
		return abi.Errorf(abi.Unavailable, "net_connect: call %s holds %d connections open, the most a call may; close some (socket.close) before opening more", c.id, maxCallConns)
	}
	c.conns = append(c.conns, conn)
	return nil
}

// endConns ends the connections brokered for the call: shut down both
// ways (the worker's duplicate of each socket included: a close of the
// host's copy alone would leave the connection to the worker), then
// closed.
func (c *inflight) endConns() {
	c.connMu.Lock()
	conns := c.conns
	c.conns, c.ended = nil, true
	c.connMu.Unlock()
	for _, conn := range conns {
		if raw, err := conn.SyscallConn(); err == nil {
			_ = raw.Control(shutdownFD)
		}
		_ = conn.Close()
	}
}
