package python_test

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// loopbackName is a name other than localhost that this machine resolves
// to a loopback address (its own host name, on most installs), or "".
func loopbackName(t *testing.T) (string, netip.Addr) {
	t.Helper()
	names := []string{"localhost.localdomain", "ip6-localhost", "ip6-loopback"}
	if h, err := os.Hostname(); err == nil {
		names = append([]string{h}, names...)
	}
	for _, n := range names {
		if n == "" || strings.EqualFold(n, "localhost") {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", n)
		cancel()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if a.Unmap().IsLoopback() {
				return strings.ToLower(n), a.Unmap()
			}
		}
	}
	return "", netip.Addr{}
}

// TestNamedHostNotLoopback: Network(host) names a machine elsewhere,
// but the host dialled whatever the name resolved to, so a tool granted
// Network(api.vendor.example) whose vendor points the name at 127.0.0.1
// (DNS it controls, or rebinding) reached the services of the host's own
// machine: the host's /metrics (no token from loopback), a local inference
// server, a database bound to loopback. A name reaches a loopback,
// unspecified or link-local address only when it is localhost; the
// address itself can be granted (Network(127.0.0.1)).
func TestNamedHostNotLoopback(t *testing.T) {
	name, addr := loopbackName(t)
	if name == "" {
		t.Skip("no name but localhost resolves to a loopback address on this machine")
	}
	ln, err := net.Listen("tcp", netip.AddrPortFrom(addr, 0).String())
	if err != nil {
		t.Skipf("listening on %s: %v", addr, err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			_ = c.Close()
		}
	}()
	port := int64(ln.Addr().(*net.TCPAddr).Port)
	rt := newRuntime(t, nil)
	all, _ := abi.ParseGrants([]string{"Network(*)"})
	load := func(pattern string) abi.Provider {
		t.Helper()
		p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "named.py", proberSource(`[Capability.Network("`+pattern+`")]`)), Grants: all})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		return p
	}
	p := load(name)
	r := attempt(t, p, "connect-to", map[string]any{"host": name, "port": port})
	select {
	case <-accepted:
		t.Fatalf("a tool granted Network(%s) reached %s on this machine through the name: %v", name, addr, r)
	case <-time.After(200 * time.Millisecond):
	}
	e, _ := r["error"].(string)
	if r["ok"] != false || !strings.Contains(e, "PermissionError") || !strings.Contains(e, addr.String()) || !strings.Contains(e, "Network("+addr.String()+")") {
		t.Errorf("connect to %s (%s): %v, want PermissionError naming the address and the grant that reaches it", name, addr, r)
	}
	// The address granted as such, and localhost, still reach it.
	pa := load(addr.String())
	if r := attempt(t, pa, "connect-to", map[string]any{"host": addr.String(), "port": port}); r["ok"] != true {
		t.Errorf("Network(%s) could not connect to it: %v", addr, r)
	}
	if addr == netip.MustParseAddr("127.0.0.1") {
		pl := load("localhost")
		if r := attempt(t, pl, "connect-to", map[string]any{"host": "localhost", "port": port}); r["ok"] != true {
			t.Errorf("Network(localhost) could not connect to it: %v", r)
		}
	}
}
