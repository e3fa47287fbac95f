package component

import (
	"context"
	"errors"
	"github.com/aios-host/aios-host/internal/testutil"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/wit"
)

func TestHandleTable(t *testing.T) {
	var tab handleTable
	a, b := tab.add("a"), tab.add("b")
	if a == 0 || a == b {
		t.Fatalf("handles %d %d", a, b)
	}
	if v, err := tab.get(b); err != nil || v != "b" {
		t.Fatalf("get %v %v", v, err)
	}
	if err := tab.remove(a); err != nil {
		t.Fatal(err)
	}
	for _, h := range []wit.Handle{0, a, 99} {
		if _, err := tab.get(h); err == nil {
			t.Errorf("handle %d accepted", h)
		}
	}
	if c := tab.add("c"); c != a {
		t.Errorf("freed handle not reused: %d", c)
	}
}

func TestWASIDenyByDefault(t *testing.T) {
	errCode := &wit.Type{Kind: wit.KindEnum, Names: []string{"access", "would-block"}}
	stat := &wit.Func{Name: "[method]descriptor.stat", Result: &wit.Type{Kind: wit.KindResult, Ok: wit.Primitive(wit.KindU64), Err: errCode}}
	h, ok := hostImpl("wasi:filesystem/types@0.2.3", "[method]descriptor.stat", stat)
	if !ok {
		t.Fatal("filesystem function not provided")
	}
	v, err := h(nil, nil, nil)
	if r, _ := v.(wit.Result); err != nil || !r.IsErr || r.Val != wit.Enum(0) {
		t.Fatalf("stat = %#v, %v; want err(access)", v, err)
	}
	if _, ok := hostImpl("wasi:sockets/tcp@0.2.0", "[method]tcp-socket.connect", &wit.Func{}); ok {
		t.Fatal("sockets offered")
	}
	if v, _ := wasiFuncs["wasi:filesystem/preopens#get-directories"](nil, nil, nil); len(v.([]wit.Value)) != 0 {
		t.Fatalf("preopens %v", v)
	}
	if _, err := randomBytes(nil, nil, []wit.Value{uint64(2 << 20)}); err == nil {
		t.Fatal("2 MiB of random bytes allowed")
	}
}

func TestGuestOutputCapped(t *testing.T) {
	env := &fakeEnv{}
	st := &callState{ctx: context.Background(), env: env}
	line := []byte(strings.Repeat("x", 1000) + "\n")
	for range 200 {
		st.output(false, line)
	}
	st.out.Flush(st.ctx, env.Logger())
	if st.out.n > MaxGuestOutput {
		t.Fatalf("%d bytes accepted, cap %d", st.out.n, MaxGuestOutput)
	}
	if n := len(env.logs); n < 60 || n > 70 || !strings.Contains(env.logs[n-1], "capped") {
		t.Fatalf("%d log records, last %q", n, env.logs[len(env.logs)-1])
	}
}

// Deadline and crash through the component runtime directly (the
// conformance table checks them through the host too), on the instrumented
// runtime (the default) and on wazero's own checks (the fallback).
func TestTimeoutAndCrash(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         Options
		instrumented bool
	}{
		// RealClock: sleep busy-waits on the monotonic clock, which is fake
		// (1 ms a reading) otherwise.
		{"instrumented", Options{CacheDir: testCacheDir(), RealClock: true}, true},
		{"wazero-checks", Options{CacheDir: testCacheDir(), NoInstrument: true, RealClock: true}, false},
		{"rewrite-refused", Options{CacheDir: testCacheDir(), RealClock: true, Instrument: func([]byte) ([]byte, error) { return nil, errors.New("refused") }}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(context.Background(), sample(t, "conformance"), "conformance.wasm", "", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if p.instrumented != tc.instrumented {
				t.Fatalf("instrumented = %v, want %v", p.instrumented, tc.instrumented)
			}
			env := &fakeEnv{}
			for range 2 { // the second call runs on a fresh instance
				start := time.Now()
				_, err := p.Call(context.Background(), &abi.ToolCall{ID: "t", Tool: "sleep", Params: map[string]any{"ms": int64(600000)}, Deadline: time.Now().Add(100 * time.Millisecond)}, env)
				if abi.CodeOf(err) != abi.Timeout || time.Since(start) > 3*time.Second {
					t.Fatalf("sleep: %v after %v", err, time.Since(start))
				}
			}
			if _, err := call(t, p, env, "crash", map[string]any{}); abi.CodeOf(err) != abi.ProviderCrashed {
				t.Fatalf("crash: %v", err)
			}
			got, err := call(t, p, env, "add", map[string]any{"a": int64(1), "b": int64(2)})
			if err != nil || got.(map[string]any)["sum"] != int64(3) {
				t.Fatalf("after timeout and crash: %v %v", got, err)
			}
		})
	}
}

// A caller's cancellation stops an instrumented guest too.
func TestCancelInstrumented(t *testing.T) {
	p, err := New(context.Background(), sample(t, "conformance"), "conformance.wasm", "", Options{CacheDir: testCacheDir(), RealClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = p.Call(ctx, &abi.ToolCall{ID: "t", Tool: "sleep", Params: map[string]any{"ms": int64(600000)}}, &fakeEnv{})
	if abi.CodeOf(err) != abi.Cancelled || time.Since(start) > 3*time.Second {
		t.Fatalf("sleep: %v after %v", err, time.Since(start))
	}
}

func TestDispatch(t *testing.T) {
	d := Dispatch(nil, NewLoader(Options{CacheDir: testCacheDir()}))
	path := filepath.Join(testutil.RepoRoot(t), "build", "components", "hello.wasm")
	sample(t, "hello")
	p, err := d.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	core := filepath.Join(t.TempDir(), "core.wasm")
	if err := os.WriteFile(core, []byte("\x00asm\x01\x00\x00\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Load(context.Background(), abi.Source{Path: core}); err == nil || !strings.Contains(err.Error(), "core WebAssembly module") {
		t.Fatalf("core module: %v", err)
	}
}
