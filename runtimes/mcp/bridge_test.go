package mcp

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// fakeConfig runs this test binary as the fake MCP server in mode.
func fakeConfig(t testing.TB, mode string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// GORACE: a race build sleeps 1 s at exit by default, which would make
	// every graceful shutdown wait for terminateWait.
	return ServerConfig{Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{"AIOS_MCP_FAKE": mode, "GORACE": "atexit_sleep_ms=0"},
		ConnectTimeout: 10 * time.Second, ReconnectMax: 200 * time.Millisecond}
}

// recorder stands in for the host: it keeps the last registration of each
// provider.
type recorder struct {
	mu    sync.Mutex
	provs map[string]abi.Provider
	regs  map[string]*abi.ToolRegister
	n     int
}

func newRecorder() *recorder {
	return &recorder{provs: map[string]abi.Provider{}, regs: map[string]*abi.ToolRegister{}}
}

func (r *recorder) publish(_ context.Context, p abi.Provider, _ string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	reg := p.Describe()
	r.provs[reg.Provider.ID] = p
	r.regs[reg.Provider.ID] = reg
	r.n++
	return nil
}

func (r *recorder) toolNames(id string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	if reg := r.regs[id]; reg != nil {
		for _, d := range reg.Tools {
			out = append(out, d.Name)
		}
	}
	sort.Strings(out)
	return out
}

func (r *recorder) provider(id string) abi.Provider {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.provs[id]
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startBridge(t *testing.T, servers map[string]ServerConfig) (*Bridge, *recorder, *syncBuffer, error) {
	t.Helper()
	rec := newRecorder()
	logs := &syncBuffer{}
	b, err := New(Options{Servers: servers, Publish: rec.publish,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	// 20 s, or longer when a server is given longer to connect
	// (TestPaginationGrows: its 60 s were cut at 20 under load).
	d := 20 * time.Second
	for _, sc := range servers {
		d = max(d, sc.ConnectTimeout+5*time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return b, rec, logs, b.Start(ctx)
}

func call(t *testing.T, p abi.Provider, tool string, params any, d time.Duration) (any, error) {
	t.Helper()
	ctx := context.Background()
	c := &abi.ToolCall{ID: "t", Tool: tool, Params: params, Deadline: time.Now().Add(d)}
	return p.Call(ctx, c, nil)
}

func TestBridgeImportsToolsAndSkipsInvalidOnes(t *testing.T) {
	good := fakeConfig(t, "good")
	good.TrustHints = true // echo's readOnlyHint makes it low
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"fake": good})
	if err != nil {
		t.Fatal(err)
	}
	got := rec.toolNames("org.aios.mcp.fake")
	want := []string{"mcp-fake-add", "mcp-fake-badresult", "mcp-fake-die", "mcp-fake-echo", "mcp-fake-fail",
		"mcp-fake-garbage", "mcp-fake-grow", "mcp-fake-hang", "mcp-fake-read-blob-data", "mcp-fake-read-greeting"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tools = %v\nwant %v", got, want)
	}
	for _, reason := range []string{`tool \"bad name!\"`, `tool \"badschema\": inputSchema does not compile`, `tool \"notobject\": inputSchema has type string`} {
		if !strings.Contains(logs.String(), reason) {
			t.Errorf("log lacks skip reason %s:\n%s", reason, logs.String())
		}
	}
	reg := rec.provider("org.aios.mcp.fake").Describe()
	if reg.Provider.Runtime != abi.RuntimeMCP || reg.Provider.Version != "1.2.3" {
		t.Errorf("provider info = %+v", reg.Provider)
	}
	for _, d := range reg.Tools {
		switch d.Name {
		case "mcp-fake-echo":
			if !d.Idempotent || d.PermissionLevel != abi.PermissionLow || d.Parameters["required"] == nil {
				t.Errorf("echo def = %+v", d)
			}
			if len(d.CapabilityRequired) != 0 {
				t.Errorf("a stdio server's tool requires %v, want nothing", d.CapabilityRequired)
			}
		case "mcp-fake-add":
			if d.Returns == nil || d.PermissionLevel != abi.PermissionHigh {
				t.Errorf("add def = %+v", d)
			}
		}
	}
}

func TestBridgeCalls(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "good")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	tests := []struct {
		name   string
		tool   string
		params any
		want   any
		code   abi.ErrorCode
		inMsg  string
	}{
		{"echo returns content", "mcp-fake-echo", map[string]any{"message": "hi"},
			map[string]any{"content": []any{map[string]any{"type": "text", "text": "Echo: hi"}}}, "", ""},
		{"output schema returns structuredContent", "mcp-fake-add", map[string]any{"a": int64(2), "b": int64(3)},
			map[string]any{"sum": int64(5)}, "", ""},
		{"isError becomes ProviderError", "mcp-fake-fail", map[string]any{}, nil, abi.ProviderError, "it went wrong"},
		{"nil params are sent as {}", "mcp-fake-fail", nil, nil, abi.ProviderError, "it went wrong"},
		{"resource text", "mcp-fake-read-greeting", map[string]any{},
			map[string]any{"contents": []any{map[string]any{"uri": "mem://greeting", "mimeType": "text/plain", "text": "hello"}}}, "", ""},
		{"resource blob is base64", "mcp-fake-read-blob-data", map[string]any{},
			map[string]any{"contents": []any{map[string]any{"uri": "mem://blob", "blob": "AAEC"}}}, "", ""},
		{"unknown tool", "mcp-fake-nope", map[string]any{}, nil, abi.NotFound, "no longer offers"},
		{"malformed result", "mcp-fake-badresult", map[string]any{}, nil, abi.ProviderError, "mcp server fake"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, p, tc.tool, tc.params, 5*time.Second)
			if tc.code != "" {
				te := abi.AsToolError(err, abi.Internal)
				if err == nil || te.Code != tc.code || !strings.Contains(te.Message, tc.inMsg) {
					t.Fatalf("got %v, %v; want %s containing %q", got, err, tc.code, tc.inMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestBridgeHungServerTimesOut(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "good")})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = call(t, rec.provider("org.aios.mcp.fake"), "mcp-fake-hang", map[string]any{}, 200*time.Millisecond)
	if abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("err = %v, want Timeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("hung call returned after %v", d)
	}
	// The server still serves other calls.
	if _, err := call(t, rec.provider("org.aios.mcp.fake"), "mcp-fake-echo", map[string]any{"message": "x"}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestBridgeServerDiesMidCallThenReconnects(t *testing.T) {
	b, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "good")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	start := time.Now()
	_, err = call(t, p, "mcp-fake-die", map[string]any{}, 10*time.Second)
	if abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("err = %v, want ProviderCrashed (the stdio server died during the call)", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("death noticed after %v", d)
	}
	// The bridge reconnects (a new process) with backoff.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := call(t, p, "mcp-fake-echo", map[string]any{"message": "back"}, 2*time.Second)
		if err == nil {
			break
		}
		if c := abi.CodeOf(err); c != abi.Unavailable {
			t.Fatalf("while reconnecting: %v, want Unavailable", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("not reconnected: %v (status %+v)", err, b.Status())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBridgeGarbageFromServer: a server that writes a line that is not
// JSON instead of its answer: the line is skipped (TestStrayStdoutLinesSkipped),
// and the call's Timeout says what the server wrote meanwhile.
func TestBridgeGarbageFromServer(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "good")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(t, rec.provider("org.aios.mcp.fake"), "mcp-fake-garbage", map[string]any{}, time.Second)
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "meanwhile the server wrote text that is not JSON-RPC to stdout (\"}}} this is not JSON-RPC {{{\")") {
		t.Fatalf("err = %v, want Timeout naming the line the server wrote", err)
	}
}

func TestBridgeListChangedRepublishes(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "noresources")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	if _, err := call(t, p, "mcp-fake-grow", map[string]any{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !contains(rec.toolNames("org.aios.mcp.fake"), "mcp-fake-late") {
		if time.Now().After(deadline) {
			t.Fatalf("tools after list_changed: %v", rec.toolNames("org.aios.mcp.fake"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, err := call(t, p, "mcp-fake-late", map[string]any{}, 5*time.Second); err != nil {
		t.Fatalf("late tool: %v, %v", got, err)
	}
	if contains(rec.toolNames("org.aios.mcp.fake"), "mcp-fake-read-greeting") {
		t.Error("resources imported from a server without the resources capability")
	}
}

func TestBridgeUnreachableServer(t *testing.T) {
	start := time.Now()
	b, rec, _, err := startBridge(t, map[string]ServerConfig{
		"dead": fakeConfig(t, "dead"),
		"good": fakeConfig(t, "noresources"),
	})
	if err == nil || !strings.Contains(err.Error(), "mcp server dead") {
		t.Fatalf("Start error = %v, want one naming the dead server", err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("Start waited %v for a dead server", d)
	}
	if got := rec.toolNames("org.aios.mcp.good"); !contains(got, "mcp-fake-echo") && !contains(got, "mcp-good-echo") {
		t.Errorf("the good server's tools are missing: %v", got)
	}
	st := b.Status()
	if len(st) != 2 || st[0].Name != "dead" || st[0].Connected || st[0].LastError == "" || !st[1].Connected {
		t.Errorf("status = %+v", st)
	}
	if err := b.Refresh(context.Background()); err != nil {
		t.Errorf("Refresh: %v", err)
	}
}

func TestBridgeClosedServerAnswersUnavailable(t *testing.T) {
	b, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "noresources")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = call(t, p, "mcp-fake-echo", map[string]any{"message": "x"}, 5*time.Second)
	if abi.CodeOf(err) != abi.Unavailable || time.Since(start) > 2*time.Second { // well before the 5 s deadline
		t.Fatalf("after Close: %v after %v, want Unavailable without waiting for the deadline", err, time.Since(start))
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no publish", Options{}, "Publish is nil"},
		{"bad server", Options{Publish: newRecorder().publish, Servers: map[string]ServerConfig{"Bad Name": {Command: "x"}}}, "invalid MCP server name"},
		{"no command or url", Options{Publish: newRecorder().publish, Servers: map[string]ServerConfig{"a": {}}}, "needs a command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestNameTakenCostsOneTool: a tool whose mcp-{server}-{tool} name another
// provider holds (the names are ambiguous: servers "a" and "a-b" can both
// make mcp-a-b-c) is left out with a warning naming the holder, published
// as aios-host publishes (ProviderMeta.Partial); the server's other tools
// are imported. (The whole server used to be refused.)
func TestNameTakenCostsOneTool(t *testing.T) {
	logs := &syncBuffer{}
	h, err := host.New(host.Options{Config: config.Default(), Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	other := native.New(abi.ProviderInfo{ID: "org.aios.mcp.fake-other"})
	other.MustRegister(abi.ToolDef{Name: "mcp-fake-echo", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "other", nil })
	if err := h.AddProvider(context.Background(), other, host.ProviderMeta{Source: "test", Trust: abi.Untrusted}); err != nil {
		t.Fatal(err)
	}
	b, err := New(Options{Servers: map[string]ServerConfig{"fake": fakeConfig(t, "good")}, Logger: slog.New(slog.DiscardHandler),
		Publish: func(ctx context.Context, p abi.Provider, source string) error {
			return h.ReplaceProvider(ctx, p, host.ProviderMeta{Source: "mcp:" + source, Trust: abi.Untrusted, Partial: true})
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range h.Registry().ProviderTools("org.aios.mcp.fake") {
		got = append(got, e.Def.Name)
	}
	if slices.Contains(got, "mcp-fake-echo") || !slices.Contains(got, "mcp-fake-add") {
		t.Fatalf("tools = %v: want every tool but mcp-fake-echo", got)
	}
	if !strings.Contains(logs.String(), "held_by=org.aios.mcp.fake-other") {
		t.Errorf("no warning naming the holder:\n%s", logs.String())
	}
}

// samplingEnv is an Env whose Complete answers (or refuses, as the host
// does without Inference) and records the request.
type samplingEnv struct {
	abi.Env
	allow bool
	got   abi.CompleteRequest
}

func (e *samplingEnv) Complete(_ context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	e.got = req
	if !e.allow {
		return abi.CompleteResponse{}, abi.Errorf(abi.CapabilityDenied, "lacks Inference")
	}
	return abi.CompleteResponse{Text: "hi there", Model: "m1"}, nil
}

// TestSampling: a server's sampling/createMessage during a bridge call is
// answered through that call's Env.Complete (so the host checks Inference
// against the caller ∩ the bridged provider), and refused when it is
// refused there.
func TestSampling(t *testing.T) {
	cfg := fakeConfig(t, "sampling")
	cfg.Sampling = true
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	if caps := p.Describe().Provider.Capabilities; !slices.Contains(caps, abi.CapInference) {
		t.Fatalf("the provider of a sampling server asks for %v, want Inference among them", caps)
	}
	for _, allow := range []bool{true, false} {
		env := &samplingEnv{allow: allow}
		c := &abi.ToolCall{ID: "t", Tool: "mcp-fake-sample", Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}
		v, err := p.Call(context.Background(), c, env)
		text := fmt.Sprint(v, err)
		if allow && !strings.Contains(text, "sampled: hi there") {
			t.Fatalf("allowed sampling: %s", text)
		}
		if !allow && (!strings.Contains(text, "sampling refused") || !strings.Contains(text, "lacks Inference")) {
			t.Fatalf("refused sampling: %s", text)
		}
		if env.got.Prompt != "say hi" || env.got.System != "be brief" || env.got.MaxTokens != 10 {
			t.Fatalf("completion request %+v", env.got)
		}
	}
}
