package python_test

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/space"
)

// netHost is a host whose agent "netter" holds Network(127.0.0.1),
// "wide" Network(*) and "nobody" only CallTool(*), with the python loader.
func netHost(t *testing.T) *host.Host {
	t.Helper()
	rt := newRuntime(t, nil)
	cfg := testConfig(t)
	cfg.Agents["netter"] = config.Agent{Grants: []string{"CallTool(*)", "Network(127.0.0.1)"}}
	cfg.Agents["wide"] = config.Agent{Grants: []string{"CallTool(*)", "Network(*)"}}
	st, err := space.Open(filepath.Join(cfg.Data, "spaces"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Spaces: st, Loaders: []abi.Loader{rt}, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// TestNetworkCallerIntersected: a brokered connection needs
// Network(host) of the caller too, as every other host service does.
func TestNetworkCallerIntersected(t *testing.T) {
	h := netHost(t)
	loadTool(t, h, "netprobe.py", proberSource(`[Capability.Network("127.0.0.1")]`))
	port, accepted := listener(t)
	params := map[string]any{"port": int64(port)}
	v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "netter", Tool: "connect", Params: params})
	if err != nil || v.(map[string]any)["ok"] != true {
		t.Fatalf("netter: %v %v", v, err)
	}
	v, err = h.Call(context.Background(), &abi.ToolCall{Caller: "nobody", Tool: "connect", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	r := v.(map[string]any)
	t.Logf("nobody: %v", r)
	if r["ok"] != false || !strings.Contains(r["error"].(string), "PermissionError") || !strings.Contains(r["error"].(string), `"nobody"`) {
		t.Errorf("a caller without Network(127.0.0.1) had the tool connect: %v", r)
	}
	time.Sleep(50 * time.Millisecond)
	if n := accepted.Load(); n != 1 {
		t.Errorf("the listener saw %d connections, want 1", n)
	}
}

const stasher = `import socket
from aios_sdk import Agent, Capability, tool

kept = []

@Agent(id="org.test.stasher", capabilities=[Capability.Network("127.0.0.1")])
class Stasher:
    @tool(name="stash", parameters={"port": {"type": "integer"}})
    def stash(self, params):
        kept.append(socket.create_connection(("127.0.0.1", params["port"]), timeout=3))
        return {"ok": True}

    @tool(name="use")
    def use(self, params):
        try:
            kept[-1].sendall(b"later")
            return {"ok": True}
        except Exception as e:
            return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
`

// TestNetworkConnectionEndsWithCall: a brokered connection is the
// call's: kept by the worker past the call's end, it served a later call
// (another caller's, which may not hold Network(host)).
func TestNetworkConnectionEndsWithCall(t *testing.T) {
	h := netHost(t)
	loadTool(t, h, "stasher.py", stasher)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(c)
		got <- b
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	if _, err := h.Call(context.Background(), &abi.ToolCall{Caller: "netter", Tool: "stash", Params: map[string]any{"port": int64(port)}}); err != nil {
		t.Fatal(err)
	}
	// The connection ends with the call: the peer sees EOF.
	select {
	case b := <-got:
		if len(b) != 0 {
			t.Fatalf("the peer read %q", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the brokered connection outlived its call")
	}
	for i := 0; i < 2; i++ { // either worker of the pool
		v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "nobody", Tool: "use", Params: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if m := v.(map[string]any); m["ok"] != false {
			t.Errorf("a later call used the connection kept from an earlier one: %v", m)
		}
	}
}

const closer = `import socket, time
from aios_sdk import Agent, Capability, tool

@Agent(id="org.test.closer", capabilities=[Capability.Network("127.0.0.1")])
class Closer:
    @tool(name="close-then-wait", parameters={"port": {"type": "integer"}, "n": {"type": "integer"}})
    def close_then_wait(self, params):
        for _ in range(params["n"]):
            s = socket.create_connection(("127.0.0.1", params["port"]), timeout=3)
            s.sendall(b"x")
            s.close()
        time.sleep(1.5)
        return {"ok": True}

    @tool(name="hoard", parameters={"port": {"type": "integer"}, "n": {"type": "integer"}})
    def hoard(self, params):
        kept = []
        try:
            for _ in range(params["n"]):
                kept.append(socket.create_connection(("127.0.0.1", params["port"]), timeout=3))
        except OSError as e:
            return {"ok": False, "opened": len(kept), "error": str(e)}
        return {"ok": True, "opened": len(kept)}
`

// TestNetworkCloseReachesPeer: a tool's close of a brokered
// connection ends it at once (the peer reads EOF while the call still
// runs), and the host keeps no copy of connections that have ended.
func TestNetworkCloseReachesPeer(t *testing.T) {
	h := netHost(t)
	loadTool(t, h, "closer.py", closer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const n = python.MaxCallConns + 50 // past the host's bound: ended connections are let go
	eofs := make(chan time.Time, n)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
				_, _ = io.ReadAll(c)
				eofs <- time.Now()
			}()
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := h.Call(context.Background(), &abi.ToolCall{Caller: "netter", Tool: "close-then-wait", Params: map[string]any{"port": int64(ln.Addr().(*net.TCPAddr).Port), "n": int64(n)}})
		done <- err
	}()
	var last time.Time
	for i := 0; i < n; i++ {
		select {
		case at := <-eofs:
			last = at
		case <-time.After(20 * time.Second):
			t.Fatalf("connection %d: no EOF", i)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The tool sleeps 1.5 s after its last close.
	if d := time.Since(last); d < time.Second {
		t.Fatalf("the peer read the last EOF %v before the call's end: at the call's end, not at the tool's close", d)
	}
}

// TestNetworkConnectionsBounded: a call holds at most
// python.MaxCallConns brokered connections open at once (each is a file
// descriptor of the host's until the call ends); the next is refused,
// saying so.
func TestNetworkConnectionsBounded(t *testing.T) {
	h := netHost(t)
	loadTool(t, h, "closer.py", closer)
	port, _ := listener(t)
	v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "netter", Tool: "hoard", Params: map[string]any{"port": int64(port), "n": int64(python.MaxCallConns + 10)}})
	if err != nil {
		t.Fatal(err)
	}
	r := v.(map[string]any)
	if r["ok"] != false || r["opened"] != int64(python.MaxCallConns) || !strings.Contains(r["error"].(string), "connections open") {
		t.Fatalf("hoard: %v", r)
	}
}

const timeouter = `import socket, time
from aios_sdk import Agent, Capability, tool

@Agent(id="org.test.timeouter", capabilities=[Capability.Network("127.0.0.1")])
class Timeouter:
    @tool(name="connect-timeout", parameters={"port": {"type": "integer"}, "timeout": {"type": "number"}})
    def connect_timeout(self, params):
        t = time.monotonic()
        try:
            socket.create_connection(("127.0.0.1", params["port"]), timeout=params["timeout"])
            return {"ok": True, "s": time.monotonic() - t}
        except OSError as e:
            return {"ok": False, "s": time.monotonic() - t, "error": "%s: %s" % (type(e).__name__, e)}
`

// TestNetworkConnectTimeout: create_connection's timeout bounds the
// brokered connect too: the host dialled until the call's deadline, so a
// tool trying one host after another spent its whole deadline on the
// first that did not answer.
func TestNetworkConnectTimeout(t *testing.T) {
	// A listener whose queue is full: SYNs are dropped, connects hang.
	port := backlogZeroListener(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for i := 0; i < 4; i++ {
		c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
		if err != nil {
			break
		}
		defer c.Close()
	}
	if c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond); err == nil {
		c.Close()
		t.Skip("the listen queue does not fill here")
	}
	h := netHost(t)
	loadTool(t, h, "timeouter.py", timeouter)
	v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "netter", Tool: "connect-timeout",
		Params: map[string]any{"port": int64(port), "timeout": 0.5}, Deadline: time.Now().Add(6 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	r := v.(map[string]any)
	t.Logf("%v", r)
	if r["ok"] != false || r["s"].(float64) > 3 || !strings.Contains(r["error"].(string), "timed out") {
		t.Fatalf("connect with timeout 0.5 s: %v; want a timeout after about 0.5 s", r)
	}
}

const hostForms = `import socket
from aios_sdk import Agent, Capability, tool

@Agent(id="org.test.hostforms", capabilities=[Capability.Network("127.0.0.1"), Capability.Network("xn--bcher-kva.example")])
class HostForms:
    @tool(name="connect-forms", parameters={"port": {"type": "integer"}})
    def connect_forms(self, params):
        out = {}
        for name, host in (("bytes", b"127.0.0.1"), ("idn", "bücher.example")):
            try:
                socket.create_connection((host, params["port"]), timeout=1).close()
                out[name] = "connected"
            except OSError as e:
                out[name] = "%s: %s" % (type(e).__name__, e)
        return out
`

// TestNetworkHostForms: create_connection takes a host as bytes or
// as an internationalized name (Python encodes it with IDNA); the SDK
// sent str(b"127.0.0.1") = "b'127.0.0.1'", and "bücher.example" was
// refused as no DNS name instead of being matched as xn--bcher-kva.example.
func TestNetworkHostForms(t *testing.T) {
	h := netHost(t)
	loadTool(t, h, "hostforms.py", hostForms)
	port, _ := listener(t)
	v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "netter", Tool: "connect-forms", Params: map[string]any{"port": int64(port)}})
	if err != nil {
		t.Fatal(err)
	}
	r := v.(map[string]any)
	t.Logf("%v", r)
	if r["bytes"] != "connected" {
		t.Errorf("host as bytes: %v", r["bytes"])
	}
	// The IDN host is matched in its ASCII form; the caller lacks it, so
	// the refusal names xn--bcher-kva.example.
	if s, _ := r["idn"].(string); !strings.Contains(s, "xn--bcher-kva.example") {
		t.Errorf("IDN host: %v; want it matched as xn--bcher-kva.example", s)
	}
}
