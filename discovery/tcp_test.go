package discovery

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestTCPEndpoint: a card's endpoints.rpc tcp://HOST:PORT (seed §2.3:
// "JSON-RPC endpoint (unix socket or TCP)") is called with newline-
// delimited JSON-RPC on a TCP connection. (It was replaced by
// endpoints.http, or refused when there was none.)
func TestTCPEndpoint(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				sc := bufio.NewScanner(conn)
				for sc.Scan() {
					var req struct {
						ID     json.RawMessage `json:"id"`
						Method string          `json:"method"`
						Params struct {
							Name      string `json:"name"`
							Arguments any    `json:"arguments"`
							Depth     int    `json:"depth"`
							ParentID  string `json:"parent_id"`
						} `json:"params"`
					}
					if json.Unmarshal(sc.Bytes(), &req) != nil {
						return
					}
					res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
						"result": map[string]any{"value": map[string]any{"tool": req.Params.Name, "over": "tcp", "args": req.Params.Arguments,
							"depth": req.Params.Depth, "parent": req.Params.ParentID}}})
					if _, err := conn.Write(append(res, '\n')); err != nil {
						return
					}
				}
			}()
		}
	}()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.tcp", "name": "TCP", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "tcp-echo", "name": "Echo", "permission_level": "low"}],
  "endpoints": {"rpc": "tcp://`+ln.Addr().String()+`"}}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, card.Endpoints.RPC, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range 2 { // the connection is kept between calls
		v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "tcp-echo", Params: map[string]any{"i": int64(i)}, Depth: 2, Deadline: time.Now().Add(5 * time.Second)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m, _ := v.(map[string]any); m["over"] != "tcp" || m["tool"] != "tcp-echo" {
			t.Fatalf("call %d = %v", i, v)
		}
		// The call's depth + 1 and its id travel with it (a loop between
		// hosts ends at limits.max_call_depth).
		if m, _ := v.(map[string]any); m["depth"] != int64(3) || m["parent"] != "c" {
			t.Fatalf("call %d forwarded depth %v parent %v, want 3 and c", i, m["depth"], m["parent"])
		}
	}
	for _, bad := range []string{"tcp://127.0.0.1", "tcp://:80x"} {
		if _, err := NewRemoteProvider(card, bad, "", nil); err == nil {
			t.Errorf("endpoint %s accepted", bad)
		}
	}
}

// TestHealthProbe: a remote adapter's endpoints.health is probed; while it
// fails the provider reports why (search and info show the adapter
// unavailable), and it recovers when the endpoint does. (health was only
// checked for form.)
func TestHealthProbe(t *testing.T) {
	old := HealthInterval
	HealthInterval = 20 * time.Millisecond
	defer func() { HealthInterval = old }()
	var down atomic.Bool
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/healthz" && down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.health", "name": "H", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "h", "name": "H", "permission_level": "low"}],
  "endpoints": {"http": "`+srv.URL+`", "health": "/healthz"}}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	time.Sleep(100 * time.Millisecond)
	if n := hits.Load(); n != 0 {
		t.Fatalf("the health endpoint was probed %d times before StartHealth", n)
	}
	p.StartHealth()
	p.StartHealth() // once
	time.Sleep(100 * time.Millisecond)
	if ok, why := p.Health(); !ok {
		t.Fatalf("healthy endpoint reported %q", why)
	}
	down.Store(true)
	testutil.Eventually(t, "the failing health endpoint is seen", func() bool {
		ok, why := p.Health()
		return !ok && strings.Contains(why, "503")
	})
	// Discovery registers a remote adapter wrapped in a generation: the
	// registry's Impl, which search and info ask, forwards the check.
	g := &generation{inner: p}
	if ok, _ := g.Health(); ok {
		t.Fatal("the generation wrapping a failing remote adapter reports it healthy")
	}
	down.Store(false)
	testutil.Eventually(t, "the recovered endpoint is seen", func() bool { ok, _ := p.Health(); return ok })
}

// TestRemoteSharedToolLeftOut: a remote adapter offering a tool version
// that a provider of equal or higher trust already serves registers its
// other tools, leaving that one out (two aios hosts both export
// analyze-complexity 1.0.0: the whole remote used to be refused).
func TestRemoteSharedToolLeftOut(t *testing.T) {
	// A local socket needs Network(localhost) (TestUnixEndpointNeedsLocalNetwork).
	env := newEnvTop(t, func(string) string { return "providers:\n  org.test.remote: {trust: Verified}\n" }, "", nil, nil)
	local := native.New(abi.ProviderInfo{ID: "org.test.local", Version: "1.0.0"})
	local.MustRegister(abi.ToolDef{Name: "shared", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "local", nil })
	if err := env.h.AddProvider(context.Background(), local, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(env.dir, "remote.adapter.json"), `{
  "adapter": {"id": "org.test.remote", "name": "Remote", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "shared", "name": "Shared", "permission_level": "low"}, {"id": "own", "name": "Own", "permission_level": "low"}],
  "endpoints": {"rpc": "unix:///nonexistent/aios-test-remote.sock"}}`)
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	reg := env.h.Registry()
	if _, err := reg.Resolve("own", ""); err != nil {
		t.Fatalf("the remote's own tool: %v (errors %v)", err, env.d.Errors())
	}
	if e, err := reg.Resolve("shared", ""); err != nil || e.Provider.Info.ID != "org.test.local" {
		t.Fatalf("shared resolves to %v, %v", e, err)
	}
}
