//go:build wasmtime

package wasmtime

import (
	"context"
	"github.com/aios-host/aios-host/internal/testutil"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// sample returns the path of build/components/<name>.wasm or fails telling
// to run `make samples`.
func sample(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(testutil.RepoRoot(t), "build", "components", name+".wasm")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run `make samples` (%v)", p, err)
	}
	return p
}

func newLoader(t testing.TB, opts Options) *Loader {
	t.Helper()
	l := NewLoader(opts)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func loadWT(t testing.TB, l *Loader, name string) *Provider {
	t.Helper()
	p, err := l.Load(context.Background(), abi.Source{Path: sample(t, name)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p.(*Provider)
}

type fakeEnv struct {
	mu      sync.Mutex
	logs    []string
	objects map[string][]byte
	call    func(tool string, params any) (any, error)
}

func (e *fakeEnv) Call() *abi.ToolCall { return nil }
func (e *fakeEnv) CallTool(ctx context.Context, tool, version string, params any) (any, error) {
	if e.call != nil {
		return e.call(tool, params)
	}
	return nil, abi.Errorf(abi.NotFound, "no tool %s", tool)
}
func (e *fakeEnv) SpaceRead(ctx context.Context, space, id string) (abi.Object, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.objects[id]
	if !ok {
		return abi.Object{}, abi.Errorf(abi.NotFound, "no object %s", id)
	}
	return abi.Object{Space: "s", ID: id, Data: d}, nil
}
func (e *fakeEnv) SpaceWrite(ctx context.Context, space string, data []byte) (abi.Object, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.objects == nil {
		e.objects = map[string][]byte{}
	}
	id := "sha256:" + space
	e.objects[id] = data
	return abi.Object{Space: space, ID: id}, nil
}
func (e *fakeEnv) Complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	return abi.CompleteResponse{}, abi.Errorf(abi.Unavailable, "no inference")
}
func (e *fakeEnv) Logger() *slog.Logger { return slog.New(slog.NewTextHandler(logWriter{e}, nil)) }

type logWriter struct{ e *fakeEnv }

func (w logWriter) Write(b []byte) (int, error) {
	w.e.mu.Lock()
	w.e.logs = append(w.e.logs, string(b))
	w.e.mu.Unlock()
	return len(b), nil
}

func callP(p abi.Provider, env abi.Env, tool string, params any, d time.Duration) (any, error) {
	return p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: tool, Params: params, Deadline: time.Now().Add(d)}, env)
}
