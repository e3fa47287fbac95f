package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

const testToken = "s3cret-token-for-tests"

// listerToken is the token of the agent lister, whose agents.NAME.methods
// allows tools/list alone.
const listerToken = "lister-token-for-tests"

// nativeProvider offers echo (exportable), add, fail, slow and secret.
func nativeProvider(id, prefix string) *native.Provider {
	return nativeProviderCounting(id, prefix, new(atomic.Int32))
}

// nativeProviderCounting is nativeProvider whose slow calls count
// themselves in running while they run.
func nativeProviderCounting(id, prefix string, running *atomic.Int32) *native.Provider {
	p := native.New(abi.ProviderInfo{ID: id, Name: "Test " + id, Version: "1.0.0"})
	obj := map[string]any{"type": "object"}
	p.MustRegister(abi.ToolDef{Name: prefix + "echo", Description: "echo the value", MCPExportable: true,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"value": map[string]any{}}, "required": []any{"value"}}},
		func(_ context.Context, params any, _ abi.Env) (any, error) {
			return map[string]any{"value": params.(map[string]any)["value"]}, nil
		})
	p.MustRegister(abi.ToolDef{Name: prefix + "add", Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
		"required":   []any{"a", "b"}, "additionalProperties": false}},
		func(_ context.Context, params any, _ abi.Env) (any, error) {
			m := params.(map[string]any)
			return map[string]any{"sum": m["a"].(int64) + m["b"].(int64)}, nil
		})
	p.MustRegister(abi.ToolDef{Name: prefix + "fail", Parameters: obj},
		func(_ context.Context, _ any, _ abi.Env) (any, error) {
			return nil, abi.Errorf(abi.ProviderError, "failed on purpose")
		})
	p.MustRegister(abi.ToolDef{Name: prefix + "slow", Parameters: obj},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			running.Add(1)
			defer running.Add(-1)
			select {
			case <-time.After(10 * time.Second):
				return "late", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	p.MustRegister(abi.ToolDef{Name: prefix + "secret", Parameters: obj, CapabilityRequired: []string{"ReadSpace(secret)"}},
		func(_ context.Context, _ any, _ abi.Env) (any, error) { return map[string]any{"ok": true}, nil })
	return p
}

type testServer struct {
	h    *host.Host
	s    *Server
	d    *discovery.Discovery
	sock string
	url  string
	dir  string
	// slow counts the calls of the tool slow running.
	slow *atomic.Int32
}

// waitSlow waits until n calls of the tool slow are running, instead of
// a sleep that a loaded machine (-race, 2 busy cores) may outlast before
// the calls reach the provider; the 30 s only bounds a hang.
func (ts *testServer) waitSlow(t testing.TB, n int32) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for ts.slow.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d slow calls running after 30 s", ts.slow.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// newTestServer starts a host with the native test provider, a server on a
// unix socket and (when withHTTP) on 127.0.0.1. extra is appended to the
// config file.
func newTestServer(t testing.TB, extra string, withHTTP bool) *testServer {
	t.Helper()
	return newTestServerAgents(t, "", extra, withHTTP)
}

// newTestServerAgents is newTestServer with more agents: agents holds
// lines of the agents map ("  lim: {grants: [...]}\n").
func newTestServerAgents(t testing.TB, agents, extra string, withHTTP bool) *testServer {
	t.Helper()
	dir, err := os.MkdirTemp("", "aiossrv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var ln net.Listener
	if withHTTP {
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
	}
	ts := buildServer(t, dir, extra, ln, "org.test.native", "", agents)
	return ts
}

func buildServer(t testing.TB, dir, extra string, ln net.Listener, providerID, prefix, agents string) *testServer {
	t.Helper()
	auditLine := "audit: {disabled: true}\n"
	if strings.Contains("\n"+extra, "\naudit:") {
		auditLine = "" // extra sets it
	}
	readTimeout := "  read_timeout: 300ms\n"
	if strings.Contains(extra, "  read_timeout:") {
		readTimeout = "" // extra sets it
	}
	doc := "plugins: []\ndata: " + filepath.Join(dir, "data") + "\n" + auditLine +
		"rate_limits: {global: {per_second: 1000000000, burst: 1000000000}}\n" +
		"agents:\n  cli: {grants: ['CallTool(*)', 'ReadSpace(*)']}\n  reader: {grants: ['CallTool(*)']}\n  peer: {grants: ['CallTool(" + prefix + "*)']}\n  lister: {grants: [], methods: ['tools/list']}\n" + agents +
		"server:\n  tokens: [{agent: peer, token: " + testToken + "}, {agent: lister, token: " + listerToken + "}]\n" + readTimeout + extra
	cfg, err := config.Parse([]byte(doc), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var log *slog.Logger
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	opts := host.Options{Config: cfg, Logger: log}
	if auditLine == "" {
		if err := os.MkdirAll(filepath.Dir(cfg.AuditPath()), 0o700); err != nil {
			t.Fatal(err)
		}
		if opts.Audit, err = audit.Open(cfg.AuditPath(), audit.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := host.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	slow := new(atomic.Int32)
	if err := h.AddProvider(context.Background(), nativeProviderCounting(providerID, prefix, slow), host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	m := NewMetrics()
	d, err := discovery.New(discovery.Options{Host: h, Config: cfg, Logger: log, OnReload: m.Reload})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Host: h, Discovery: d, Config: cfg, Logger: log, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{h: h, s: s, d: d, dir: dir, sock: filepath.Join(dir, "h.sock"), slow: slow}
	if err := s.ListenUnix(ts.sock); err != nil {
		t.Fatal(err)
	}
	if ln != nil {
		s.ServeHTTPListener(ln)
		ts.url = "http://" + ln.Addr().String()
	}
	t.Cleanup(func() {
		_ = s.Close()
		_ = d.Close()
		_ = h.Close()
	})
	return ts
}

func (ts *testServer) startDiscovery(t testing.TB) {
	t.Helper()
	if err := ts.d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// rpcCode returns the JSON-RPC code and data.code of err ("" when err is
// not a JSON-RPC error).
func rpcCode(err error) (int, abi.ErrorCode) {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return 0, ""
	}
	if je.Data == nil {
		return je.Code, ""
	}
	return je.Code, je.Data.Code
}

func uid() int { return os.Getuid() }

func jsonValid(b []byte) bool { return json.Valid(b) }
