package component

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"github.com/aios-host/aios-host/internal/testutil"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/wit"
)

func sample(t testing.TB, name string) []byte {
	t.Helper()
	p := filepath.Join(testutil.RepoRoot(t), "build", "components", name+".wasm")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%s missing: run `make samples` (samples/components/build.sh): %v", p, err)
	}
	return b
}

func load(t testing.TB, name string) *Provider {
	t.Helper()
	p, err := New(context.Background(), sample(t, name), name+".wasm", "", Options{CacheDir: testCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// testCacheDir keeps compiled guests across test runs.
func testCacheDir() string { return filepath.Join(os.TempDir(), "aios-component-test-cache") }

// fakeEnv is an abi.Env for tests.
type fakeEnv struct {
	mu      sync.Mutex
	call    *abi.ToolCall
	logs    []string
	objects map[string][]byte
	tools   func(tool string, params any) (any, error)
}

func (e *fakeEnv) Call() *abi.ToolCall { return e.call }
func (e *fakeEnv) CallTool(ctx context.Context, tool, version string, params any) (any, error) {
	if e.tools == nil {
		return nil, abi.Errorf(abi.NotFound, "no tool %s", tool)
	}
	return e.tools(tool, params)
}
func (e *fakeEnv) SpaceRead(ctx context.Context, space, id string) (abi.Object, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.objects[id]
	if !ok {
		return abi.Object{}, abi.Errorf(abi.NotFound, "no object %s", id)
	}
	return abi.Object{Space: "s", ID: id, Data: b}, nil
}
func (e *fakeEnv) SpaceWrite(ctx context.Context, space string, data []byte) (abi.Object, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.objects == nil {
		e.objects = map[string][]byte{}
	}
	sum := sha256.Sum256(data)
	id := "sha256:" + hex.EncodeToString(sum[:])
	e.objects[id] = append([]byte(nil), data...)
	return abi.Object{Space: space, ID: id, Data: data}, nil
}
func (e *fakeEnv) Complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	return abi.CompleteResponse{}, abi.Errorf(abi.CapabilityDenied, "no inference")
}
func (e *fakeEnv) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(logWriter{e}, nil))
}

type logWriter struct{ e *fakeEnv }

func (w logWriter) Write(b []byte) (int, error) {
	w.e.mu.Lock()
	w.e.logs = append(w.e.logs, string(b))
	w.e.mu.Unlock()
	return len(b), nil
}

func call(t testing.TB, p *Provider, env abi.Env, tool string, params any) (any, error) {
	t.Helper()
	return p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: tool, Params: params, Deadline: time.Now().Add(10 * time.Second)}, env)
}

func TestHelloComponent(t *testing.T) {
	p := load(t, "hello")
	reg := p.Describe()
	var names []string
	for _, d := range reg.Tools {
		names = append(names, d.Name)
	}
	if !reflect.DeepEqual(names, []string{"add", "hello"}) {
		t.Fatalf("tools %v", names)
	}
	if reg.Provider.Runtime != abi.RuntimeComponent || reg.Provider.ID != "component.hello" {
		t.Fatalf("provider %+v", reg.Provider)
	}
	env := &fakeEnv{}
	tests := []struct {
		tool   string
		params any
		want   any
		code   abi.ErrorCode
	}{
		{"add", map[string]any{"a": int64(40), "b": int64(2)}, int64(42), ""},
		{"add", map[string]any{"a": int64(-5), "b": int64(2)}, int64(-3), ""},
		{"add", map[string]any{"a": int64(1) << 40, "b": int64(2)}, nil, abi.InvalidParams},
		{"add", map[string]any{"a": int64(1)}, nil, abi.InvalidParams},
		{"hello", map[string]any{"g": map[string]any{"name": "wörld", "times": int64(2)}}, "hello, wörldwörld", ""},
		{"hello", map[string]any{"g": map[string]any{"name": "x", "times": int64(0)}}, nil, abi.ProviderError},
		{"hello", map[string]any{"g": map[string]any{"name": "x", "times": int64(1), "extra": true}}, nil, abi.InvalidParams},
		{"nope", map[string]any{}, nil, abi.NotFound},
	}
	for _, tc := range tests {
		got, err := call(t, p, env, tc.tool, tc.params)
		if tc.code != "" {
			if abi.CodeOf(err) != tc.code {
				t.Errorf("%s %v: err %v, want code %s", tc.tool, tc.params, err, tc.code)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v = %#v, %v; want %#v", tc.tool, tc.params, got, err, tc.want)
		}
	}
	if len(env.logs) == 0 || !strings.Contains(env.logs[0], "hello called with times = 0") {
		t.Errorf("guest log not seen: %v", env.logs)
	}
	schema := reg.Tools[1].Parameters
	g := schema["properties"].(map[string]any)["g"].(map[string]any)
	if g["type"] != "object" || g["additionalProperties"] != false {
		t.Errorf("hello params schema %v", schema)
	}
}

// BenchmarkComponentCallRecord is the provider alone (no host pipeline):
// JSON → WIT value, lower, call, lift, post-return, WIT value → JSON.
func BenchmarkComponentCallRecord(b *testing.B) {
	p := load(b, "hello")
	ctx := context.Background()
	call := &abi.ToolCall{ID: "b", Tool: "hello", Params: map[string]any{"g": map[string]any{"name": "wörld", "times": int64(2)}}}
	env := &fakeEnv{}
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if _, err := p.Call(ctx, call, env); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's CPU time; cpu-ns/op is robust on a shared machine.
func cpuTime() time.Duration {
	return testutil.ProcessCPU()
}

// BenchmarkComponentCallRecordChecks is BenchmarkComponentCallRecord on a
// runtime with wazero's termination checks instead of the instrumentation
// (Options.NoInstrument): a goroutine per guest call and checks at every
// function entry and loop header, for comparison.
func BenchmarkComponentCallRecordChecks(b *testing.B) {
	p, err := New(context.Background(), sample(b, "hello"), "hello.wasm", "", Options{NoInstrument: true, CacheDir: testCacheDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	call := &abi.ToolCall{ID: "b", Tool: "hello", Params: map[string]any{"g": map[string]any{"name": "wörld", "times": int64(2)}}}
	env := &fakeEnv{}
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if _, err := p.Call(context.Background(), call, env); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// TestImportWrongTypes: a component that imports aios:sdk/log with other
// types than aios-host implements fails its call with an error naming the
// import and the declared types; it used to panic inside the host
// function, and the message carried the host's Go stack.
func TestImportWrongTypes(t *testing.T) {
	p := load(t, "import-wrong-types")
	_, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "f", Params: map[string]any{}}, &fakeEnv{})
	if err == nil {
		t.Fatal("the call succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "import aios:sdk/log@0.1.0#log: the component declares it as func(level: u32, message: u32)") || strings.Contains(msg, "goroutine") {
		t.Fatalf("err = %v", err)
	}
}

// TestInlineInstanceExports: functions of inline export instances print
// under their export names (they printed as " : func()").
func TestInlineInstanceExports(t *testing.T) {
	p := load(t, "inline-exports")
	w := wit.Print(p.World())
	if strings.Contains(w, " : func") || !strings.Contains(w, "run: func();") {
		t.Fatalf("WIT:\n%s", w)
	}
}

// TestCorruptCompileCache: a component whose cached code cannot be read
// back (corrupt entries) still loads and serves, the entries compiled
// again, with a warning.
func TestCorruptCompileCache(t *testing.T) {
	dir := t.TempDir()
	p, err := New(context.Background(), sample(t, "hello"), "hello.wasm", "", Options{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	entries, _ := filepath.Glob(filepath.Join(dir, "wazero-*", "*"))
	if len(entries) == 0 {
		t.Fatalf("no cache entries in %s", dir)
	}
	for _, e := range entries {
		if err := os.WriteFile(e, []byte("WAZEVO\x05junk"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Through the Loader, as the host loads it: the host's logger names the
	// file already, and the warning does not name it twice.
	var logs strings.Builder
	path := filepath.Join(testutil.RepoRoot(t), "build", "components", "hello.wasm")
	ap, err := NewLoader(Options{CacheDir: dir}).Load(context.Background(), abi.Source{Path: path, Logger: slog.New(slog.NewTextHandler(&logs, nil)).With("file", path)})
	if err != nil {
		t.Fatalf("load with a corrupt cache: %v", err)
	}
	p = ap.(*Provider)
	defer p.Close()
	if got, err := call(t, p, &fakeEnv{}, "add", map[string]any{"a": int64(40), "b": int64(2)}); err != nil || got != int64(42) {
		t.Fatalf("add = %v, %v", got, err)
	}
	// The damaged entries are removed and compiled again
	// (TestComponentCacheDamagedHeader).
	if !strings.Contains(logs.String(), "compiled again") {
		t.Errorf("no warning about the cache; log:\n%s", logs.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Count(l, " file=") != 1 {
			t.Errorf("a log line naming the file other than once: %s", l)
		}
	}
}
