package python_test

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

const unixProber = `import socket
from aios_sdk import Agent, Capability, tool

@Agent(id="org.test.unixprobe", capabilities=[Capability.Network("*")])
class P:
    @tool(name="unix", parameters={"path": {"type": "string"}})
    def unix(self, params):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(3)
            s.connect(params["path"])
            s.close()
            return {"ok": True, "error": ""}
        except Exception as e:
            return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}

    @tool(name="pair")
    def pair(self, params):
        a, b = socket.socketpair()
        a.sendall(b"x")
        v = b.recv(1)
        a.close()
        b.close()
        return {"ok": v == b"x"}
`

// Network(*) is the network, not the host's local sockets: a worker that
// holds it could connect to the host's own JSON-RPC socket, where the peer
// uid — the host's — is the default agent (cli: every grant, critical
// tools), escaping the caller ∩ provider intersection; or to the user's
// session bus or ssh-agent. socket(AF_UNIX) stays refused;
// socketpair(2) (asyncio, multiprocessing) still works.
func TestNetworkGrantNoUnixSockets(t *testing.T) {
	rt := newRuntime(t, nil)
	sock := filepath.Join(t.TempDir(), "h.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	all, _ := abi.ParseGrants([]string{"Network(*)"})
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "unixprobe.py", unixProber), Grants: all})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !strings.Contains(rt.Layers().String(), "seccomp=on") {
		t.Skip("no seccomp filter here: ", rt.Layers())
	}
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "u", Tool: "unix", Params: map[string]any{"path": sock}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if r := v.(map[string]any); r["ok"] != false || accepted.Load() != 0 || !strings.Contains(r["error"].(string), "Permission") {
		t.Errorf("a Network(*) worker reached a unix socket of the host: %v (accepted %d)", r, accepted.Load())
	}
	v, err = p.Call(context.Background(), &abi.ToolCall{ID: "p", Tool: "pair", Params: map[string]any{}}, nil)
	if err != nil || v.(map[string]any)["ok"] != true {
		t.Errorf("socketpair: %v, %v", v, err)
	}
}
