//go:build linux

package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// abstractBinder names a unix socket of a socket pair (the one unix
// socket the seccomp rule lets a worker make) in the abstract namespace,
// and, where it may, binds an IP socket as Network(*) allows.
const abstractBinder = `import socket
from aios_sdk import Agent, Capability, tool

def err(e):
    return "%s: %s" % (type(e).__name__, e)

@Agent(id="org.test.abstract", capabilities=CAPS)
class D:
    @tool(name="bind")
    def bind(self, params):
        out = {}
        for kind in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET):
            for name in (b"\0aios-abstract-probe", b"\0" + b"x" * 13, b"\0" + b"y" * 25, b"\0" + b"z" * 9):
                a, b = socket.socketpair(socket.AF_UNIX, kind)
                try:
                    a.bind(name)
                    out["%d %d" % (kind, len(name))] = "bound %r" % (a.getsockname(),)
                except OSError as e:
                    out["%d %d" % (kind, len(name))] = err(e)
                a.close()
                b.close()
        if params.get("ip"):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind(("127.0.0.1", 0))
                out["inet"] = "ok"
            except OSError as e:
                out["inet"] = err(e)
            s.close()
            # glibc's getaddrinfo binds one to learn the local addresses.
            s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
            try:
                s.bind((0, 0))
                out["netlink"] = "ok"
            except OSError as e:
                out["netlink"] = err(e)
            s.close()
        return out
`

// TestNoAbstractUnixName: the abstract unix namespace belongs to a
// network namespace and has no permissions, so a worker that shares the
// host's (one holding Network(*), or any worker where network namespaces
// are unavailable) bound a name in it there: bind(2) of a socket pair's
// socket to "\0name" took the name from every process of the machine
// (a service binding it later failed with EADDRINUSE, a client
// connecting to it was refused). bind(2) is now refused without network
// and, with it, for every address length but an IP (or netlink) one.
func TestNoAbstractUnixName(t *testing.T) {
	rt := newRuntime(t, nil)
	whole, err := abi.ParseGrants([]string{"Network(*)"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, caps string
		grants     abi.Grants
	}{
		{"no network", "[]", nil},
		{"Network(*)", `[Capability.Network("*")]`, whole},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "abstract.py", strings.Replace(abstractBinder, "CAPS", c.caps, 1)), Grants: c.grants})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if l := rt.Layers(); l.Disabled || !l.Seccomp {
				t.Skipf("seccomp unavailable: %s", l.SeccompErr)
			}
			r := attempt(t, p, "bind", map[string]any{"ip": c.grants != nil})
			refused := []string{"1 20", "5 20"}
			if c.grants == nil {
				refused = append(refused, "1 10", "1 14", "1 26", "5 10", "5 14", "5 26")
			}
			for _, k := range refused {
				if s, _ := r[k].(string); !strings.HasPrefix(s, "PermissionError") {
					t.Errorf("bind of an abstract name (type, length %s): %q, want PermissionError; all: %v", k, s, r)
				}
			}
			if c.grants != nil {
				if r["inet"] != "ok" {
					t.Errorf("Network(*): bind of an IP socket: %v, want ok; all: %v", r["inet"], r)
				}
				if r["netlink"] != "ok" {
					t.Errorf("Network(*): bind of a netlink socket: %v, want ok; all: %v", r["netlink"], r)
				}
			}
		})
	}
}
