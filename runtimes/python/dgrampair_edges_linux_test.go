//go:build linux

package python_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/abi"
)

// dgramSender tries to reach a unix datagram socket by path through a
// socket pair, the one kind of socket the seccomp rule let a worker make.
const dgramSender = `import socket
from aios_sdk import Agent, Capability, tool

def err(e):
    return "%s: %s" % (type(e).__name__, e)

@Agent(id="org.test.dgram", capabilities=CAPS)
class D:
    @tool(name="dgram", parameters={"path": {"type": "string"}})
    def dgram(self, params):
        out = {}
        for kind in (socket.SOCK_DGRAM, socket.SOCK_RAW):
            try:
                a, b = socket.socketpair(socket.AF_UNIX, kind | socket.SOCK_CLOEXEC)
            except OSError as e:
                out["pair %d" % kind] = err(e)
                continue
            try:
                a.sendto(b"sendto", params["path"])
                out["sendto %d" % kind] = "sent"
            except OSError as e:
                out["sendto %d" % kind] = err(e)
            try:
                a.connect(params["path"])
                a.send(b"connect")
                out["connect %d" % kind] = "sent"
            except OSError as e:
                out["connect %d" % kind] = err(e)
        # The pairs asyncio, multiprocessing.Pipe and subprocess use.
        for kind in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET):
            a, b = socket.socketpair(socket.AF_UNIX, kind)
            a.send(b"ok")
            out["pair %d" % kind] = b.recv(2).decode()
        return out
`

// TestNoDatagramSocketPair: a datagram socket sends to any unix socket
// by path (sendto(2) with an address; with Network, connect(2) to another
// peer), which Landlock does not cover. socket(2) of AF_UNIX is refused,
// but socketpair(2) was not: a worker without network, and one with
// Network(*) (which the filter keeps off the host's local sockets), wrote
// datagrams into a unix socket of the host's machine (as syslog's
// /dev/log, journald's or systemd's notify socket). socketpair(2) now
// makes stream and seqpacket pairs only.
func TestNoDatagramSocketPair(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "log.sock")
	ln, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Skipf("no unix datagram socket: %v", err)
	}
	defer ln.Close()
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
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
			p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "dgram.py", strings.Replace(dgramSender, "CAPS", c.caps, 1)), Grants: c.grants})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if l := rt.Layers(); l.Disabled || !l.Seccomp {
				t.Skipf("seccomp unavailable: %s", l.SeccompErr)
			}
			r := attempt(t, p, "dgram", map[string]any{"path": sock})
			// What was sent is queued at the socket by now: sendto(2)
			// of a unix datagram socket delivers before it returns.
			raw, err := ln.SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			for {
				buf := make([]byte, 64)
				var n int
				var rerr error
				if err := raw.Control(func(fd uintptr) { n, _, rerr = unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT) }); err != nil {
					t.Fatal(err)
				}
				if rerr != nil {
					break // nothing (more) queued
				}
				t.Errorf("the host's unix datagram socket received %q from the worker; the tool saw %v", buf[:n], r)
			}
			// The refusal says why (it was a bare "[Errno 13] Permission
			// denied", which socketpair(2) itself never returns).
			for _, k := range []string{"pair 2", "pair 3"} {
				if s, _ := r[k].(string); !strings.Contains(s, "PermissionError") || !strings.Contains(s, "socket.socketpair(): the sandbox makes unix socket pairs of type SOCK_STREAM or SOCK_SEQPACKET only") {
					t.Errorf("%s: %q, want PermissionError saying which pairs the sandbox makes; all: %v", k, s, r)
				}
			}
			for _, k := range []string{"pair 1", "pair 5"} {
				if r[k] != "ok" {
					t.Errorf("%s: %v, want ok (stream and seqpacket pairs work); all: %v", k, r[k], r)
				}
			}
		})
	}
}
