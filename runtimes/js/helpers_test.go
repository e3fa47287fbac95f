package js

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// fakeEnv is a host stand-in: an in-memory space store, a tool table for
// CallTool, and a canned inference backend.
type fakeEnv struct {
	call     *abi.ToolCall
	mu       sync.Mutex
	objects  map[string]abi.Object // by id
	tools    map[string]func(ctx context.Context, params any) (any, error)
	complete func(req abi.CompleteRequest) (abi.CompleteResponse, error)
	logs     []string
}

func newFakeEnv() *fakeEnv {
	return &fakeEnv{objects: map[string]abi.Object{}, tools: map[string]func(context.Context, any) (any, error){}}
}

func (e *fakeEnv) Call() *abi.ToolCall { return e.call }

func (e *fakeEnv) CallTool(ctx context.Context, tool, version string, params any) (any, error) {
	fn, ok := e.tools[tool]
	if !ok {
		return nil, abi.Errorf(abi.NotFound, "no tool %q", tool)
	}
	return fn(ctx, params)
}

func (e *fakeEnv) SpaceRead(ctx context.Context, space, id string) (abi.Object, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	o, ok := e.objects[id]
	if !ok || (space != "" && o.Space != space) {
		return abi.Object{}, abi.Errorf(abi.NotFound, "no object %s", id)
	}
	return o, nil
}

func (e *fakeEnv) SpaceWrite(ctx context.Context, space string, data []byte) (abi.Object, error) {
	sum := sha256.Sum256(data)
	o := abi.Object{Space: space, ID: "sha256:" + hex.EncodeToString(sum[:]), Data: append([]byte(nil), data...)}
	e.mu.Lock()
	e.objects[o.ID] = o
	e.mu.Unlock()
	return o, nil
}

func (e *fakeEnv) Complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	if e.complete == nil {
		return abi.CompleteResponse{}, abi.Errorf(abi.Unavailable, "no inference backend configured")
	}
	return e.complete(req)
}

func (e *fakeEnv) Logger() *slog.Logger {
	return slog.New(&captureHandler{env: e})
}

type captureHandler struct{ env *fakeEnv }

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.env.mu.Lock()
	h.env.logs = append(h.env.logs, r.Level.String()+" "+r.Message)
	h.env.mu.Unlock()
	return nil
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

func newRuntime(t testing.TB, opts Options) *Runtime {
	t.Helper()
	rt := New(opts)
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}

// writeSource writes a provider file into a temporary folder.
func writeSource(t testing.TB, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func loadPath(t testing.TB, rt *Runtime, path string) *Provider {
	t.Helper()
	p, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	jp := p.(*Provider)
	t.Cleanup(func() {
		_ = jp.Close()
		waitAbandoned(t, jp, 2*time.Minute)
	})
	return jp
}

// waitAbandoned waits until no abandoned runtime of p is still running, so
// a runtime stuck in a native built-in cannot burn CPU or hold memory into
// the next test and skew its timing or heap measurements.
func waitAbandoned(t testing.TB, p *Provider, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for p.Abandoned() > 0 {
		if time.Now().After(deadline) {
			t.Errorf("%d abandoned runtimes of %s still running %v after the test", p.Abandoned(), p.path, limit)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func loadSource(t testing.TB, rt *Runtime, name, src string) *Provider {
	t.Helper()
	return loadPath(t, rt, writeSource(t, name, src))
}

func runtimeOf(path string) string {
	if filepath.Ext(path) == ".ts" {
		return abi.RuntimeTS
	}
	return abi.RuntimeJS
}

// call calls tool with params under a deadline.
func call(t testing.TB, p *Provider, env abi.Env, tool string, params any, timeout time.Duration) (any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := &abi.ToolCall{ID: "c1", Tool: tool, Params: params}
	if fe, ok := env.(*fakeEnv); ok {
		fe.call = c
	}
	return p.Call(ctx, c, env)
}

func wantCode(t testing.TB, err error, code abi.ErrorCode) *abi.ToolError {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s error, got success", code)
	}
	te, ok := err.(*abi.ToolError)
	if !ok {
		t.Fatalf("want *abi.ToolError %s, got %T %v", code, err, err)
	}
	if te.Code != code {
		t.Fatalf("want code %s, got %s: %s", code, te.Code, te.Message)
	}
	return te
}
