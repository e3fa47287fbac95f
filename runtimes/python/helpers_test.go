package python_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/space"
)

// testLogger sends runtime logs to the test log until the test ends (worker
// goroutines may still log afterwards, e.g. a worker's last stderr line).
func testLogger(t testing.TB) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type testWriter struct {
	t    testing.TB
	mu   sync.Mutex
	done bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// testConfig is the host config of these tests: agent "tester" may call
// everything and use the documents and images spaces; "nobody" may only call.
func testConfig(t testing.TB) *config.Config {
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.Plugins = nil
	cfg.Agents = map[string]config.Agent{
		"tester": {Grants: []string{"CallTool(*)", "ReadSpace(documents)", "ReadSpace(images)", "WriteSpace(images)"}},
		"nobody": {Grants: []string{"CallTool(*)"}},
	}
	cfg.Limits.DefaultDeadline = 20 * time.Second
	cfg.Limits.MaxParamsBytes = 8 << 20
	cfg.Limits.MaxResultBytes = 8 << 20
	if _, ok := t.(*testing.B); ok {
		// A benchmark calls faster than the default global limit
		// (10 000 a second) for longer than its burst.
		cfg.RateLimits.Global = &config.Rate{PerSecond: 1e12, Burst: 1 << 30}
	}
	return cfg
}

// newRuntime returns a python runtime with pc applied over the defaults.
func newRuntime(t testing.TB, pc func(*python.Config)) *python.Runtime {
	t.Helper()
	c := python.DefaultConfig()
	c.PoolSize = 2
	if pc != nil {
		pc(&c)
	}
	rt, err := python.New(c, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// newHost returns a host with the python loader (plus extra loaders) and a
// Space store.
func newHost(t testing.TB, rt *python.Runtime, extra ...abi.Loader) *host.Host {
	t.Helper()
	cfg := testConfig(t)
	st, err := space.Open(filepath.Join(cfg.Data, "spaces"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Spaces: st, Loaders: append([]abi.Loader{rt}, extra...), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// writeTool writes a tool file into a fresh folder and returns its path.
func writeTool(t testing.TB, name, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadTool writes src and loads it into h at trust level System.
func loadTool(t testing.TB, h *host.Host, name, src string) abi.Provider {
	t.Helper()
	p, err := h.LoadFile(context.Background(), writeTool(t, name, src), host.ProviderMeta{Source: name, Trust: abi.System})
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return p
}

// call runs tool as caller "tester".
func call(h *host.Host, tool string, params any, deadline time.Duration) (any, error) {
	c := &abi.ToolCall{Caller: "tester", Tool: tool, Params: params}
	if deadline > 0 {
		c.Deadline = time.Now().Add(deadline)
	}
	return h.Call(context.Background(), c)
}

// wantCode fails unless err is a ToolError of code whose message contains
// every string of contains.
func wantCode(t testing.TB, err error, code abi.ErrorCode, contains ...string) {
	t.Helper()
	var te *abi.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("want %s, got %v", code, err)
	}
	if te.Code != code {
		t.Fatalf("want %s, got %s: %s", code, te.Code, te.Message)
	}
	for _, s := range contains {
		if !strings.Contains(te.Message, s) {
			t.Fatalf("%s message %q does not contain %q", code, te.Message, s)
		}
	}
}

// stillServes checks that the tool "ok" of a loaded provider answers.
func stillServes(t testing.TB, h *host.Host, after string) {
	t.Helper()
	got, err := call(h, "ok", map[string]any{}, 0)
	if err != nil {
		t.Fatalf("after %s the provider no longer serves: %v", after, err)
	}
	if m, _ := got.(map[string]any); m["ok"] != true {
		t.Fatalf("after %s: ok returned %#v", after, got)
	}
}
