//go:build linux

package python_test

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// repointer takes the socket the host connected for it and tries to point
// it at another address: connect(AF_UNSPEC) disconnects a TCP socket, and
// a second connect (or sendto with MSG_FASTOPEN) connects it again.
const repointer = `import ctypes, os, socket
from aios_sdk import Agent, Capability, tool

libc = ctypes.CDLL(None, use_errno=True)

@Agent(id="org.test.repoint", capabilities=[Capability.Network("127.0.0.1")])
class Repoint:
    @tool(name="repoint", parameters={"port": {"type": "integer"}, "to": {"type": "string"}, "to_port": {"type": "integer"}})
    def repoint(self, params):
        s = socket.create_connection(("127.0.0.1", params["port"]), timeout=3)
        r = socket.socket(fileno=os.dup(s.fileno()))
        out = {}
        unspec = (ctypes.c_char * 16)()  # sa_family 0: AF_UNSPEC
        rc = libc.connect(r.fileno(), unspec, 16)
        out["disconnect"] = "ok" if rc == 0 else os.strerror(ctypes.get_errno())
        r.setblocking(True)
        r.settimeout(3)
        try:
            r.connect((params["to"], params["to_port"]))
            out["connect"] = "ok"
        except OSError as e:
            out["connect"] = "%s: %s" % (type(e).__name__, e)
        try:
            r.sendto(b"x", socket.MSG_FASTOPEN, (params["to"], params["to_port"]))
            out["fastopen"] = "ok"
        except OSError as e:
            out["fastopen"] = "%s: %s" % (type(e).__name__, e)
        return out
`

// TestBrokeredSocketNotRepointed: a tool granted Network(127.0.0.1)
// holds a TCP socket the host connected for it, in the host's network
// namespace. On a kernel whose Landlock has no TCP rules (ABI < 4, Linux
// before 6.7) nothing but Landlock stood in the way of re-pointing it:
// connect(AF_UNSPEC) then connect to any address reached 127.0.0.2, which
// the grant does not name. The seccomp filter refuses connect(2) to a
// worker without the whole network.
func TestBrokeredSocketNotRepointed(t *testing.T) {
	rt := newRuntime(t, nil)
	v, err := python.OlderLandlock(rt, 3)
	if err != nil {
		t.Fatal(err)
	}
	if l := rt.Layers(); !l.Seccomp {
		t.Skipf("seccomp unavailable: %s", l.SeccompErr)
	}
	t.Logf("Landlock ABI %d (no TCP rules)", v)
	granted, _ := listener(t)
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 to listen on: %v", err)
	}
	defer ln.Close()
	reached := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached <- c.RemoteAddr().String()
			_ = c.Close()
		}
	}()
	all, _ := abi.ParseGrants([]string{"Network(*)"})
	path := writeTool(t, "repoint.py", repointer)
	p, err := rt.Load(context.Background(), abi.Source{Path: path, Unit: filepath.Dir(path), Grants: all})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := attempt(t, p, "repoint", map[string]any{"port": int64(granted), "to": "127.0.0.2", "to_port": int64(ln.Addr().(*net.TCPAddr).Port)})
	select {
	case from := <-reached:
		t.Fatalf("a tool granted Network(127.0.0.1) re-pointed its brokered socket to %s (from %s): %v", ln.Addr(), from, r)
	case <-time.After(300 * time.Millisecond):
	}
	for _, k := range []string{"disconnect", "connect"} {
		if s, _ := r[k].(string); !strings.Contains(s, "ermission denied") {
			t.Errorf("%s: %q, want permission denied (seccomp EACCES); all: %v", k, s, r)
		}
	}
}
