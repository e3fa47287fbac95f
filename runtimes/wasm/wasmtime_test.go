//go:build wasmtime

package wasm

import (
	"bytes"
	"context"
	"fmt"
	"github.com/aios-host/aios-host/internal/testutil"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

func newWasmtimeTestLoader(t testing.TB, cfg Config) *WasmtimeLoader {
	t.Helper()
	if cfg.CacheDir == "" {
		cfg.CacheDir = filepath.Join(os.TempDir(), "aios-wasm-test", "cache")
	}
	l, err := NewWasmtimeLoader(Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestEngineSelection(t *testing.T) {
	for _, tc := range []struct {
		engine, want string
	}{{"", "*wasm.Loader"}, {"wazero", "*wasm.Loader"}, {"wasmtime", "*wasm.WasmtimeLoader"}, {"v8", "error"}} {
		l, err := NewEngineLoader(tc.engine, Options{Config: Config{CacheDir: t.TempDir()}})
		got := "error"
		if err == nil {
			got = fmt.Sprintf("%T", l)
			_ = l.(interface{ Close() error }).Close()
		}
		if got != tc.want {
			t.Errorf("engine %q: %s (%v), want %s", tc.engine, got, err, tc.want)
		}
	}
	if got := Engines(); !reflect.DeepEqual(got, []string{"wazero", "wasmtime"}) {
		t.Errorf("Engines() = %v", got)
	}
}

// The WASM-core bad-input list on wasmtime: each is a load error, never a
// crash of the process.
func TestWasmtimeLoadRejects(t *testing.T) {
	cases := append(loadRejectCases(t),
		loadRejectCase{"trap in start", mustWAT(t, withStartTrap(abiSkeleton(`(i64.const 0)`))), "instantiate"})
	l := newWasmtimeTestLoader(t, Config{MemoryLimitPages: 50})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := l.Load(context.Background(), abi.Source{Path: writeFile(t, "g.wasm", c.data)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant an error containing %q", err, c.want)
			}
		})
	}
}

// withStartTrap adds a start function that traps to a module's WAT.
func withStartTrap(wat string) string {
	i := strings.LastIndex(wat, ")")
	return wat[:i] + ` (func $aiosStartTrap unreachable) (start $aiosStartTrap))`
}

// A trap inside a host call (the guest's aios_alloc traps while the host
// delivers an answer) is a ToolError, and the provider serves the next call.
func TestWasmtimeConformanceBehaviours(t *testing.T) {
	l := newWasmtimeTestLoader(t, Config{})
	p, err := l.Load(context.Background(), abi.Source{Path: builtGuest(t, "conformance")})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	env := newFakeEnv(p, 4)
	cases := []struct {
		tool   string
		params any
		d      time.Duration
		code   abi.ErrorCode
	}{
		{"crash", map[string]any{}, 5 * time.Second, abi.ProviderCrashed},
		{"sleep", map[string]any{"ms": int64(1e9)}, 100 * time.Millisecond, abi.Timeout},
		{"fail", map[string]any{"message": "boom"}, 5 * time.Second, abi.ProviderError},
		{"nested", map[string]any{"tool": "crash", "params": map[string]any{}}, 5 * time.Second, abi.ProviderCrashed},
		{"add", map[string]any{"a": int64(1), "b": int64(2)}, 5 * time.Second, ""},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := call(p, env, c.tool, c.params, c.d)
		if abi.CodeOf(err) != c.code && !(c.code == "" && err == nil) {
			t.Errorf("%s: %v, want %q", c.tool, err, c.code)
		}
		if c.code == abi.Timeout && time.Since(start) > 2*time.Second {
			t.Errorf("timeout took %v", time.Since(start))
		}
	}
}

// genValue makes a random JSON value for a JSON Schema (the subset tools
// use: type, properties, required, items, enum, minimum/maximum).
func genValue(r *rand.Rand, s map[string]any, depth int) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[r.IntN(len(e))]
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[r.IntN(len(ts))].(string)
	}
	if typ == "" && depth < 3 {
		typ = []string{"null", "boolean", "integer", "number", "string", "array", "object"}[r.IntN(7)]
	}
	switch typ {
	case "null":
		return nil
	case "boolean":
		return r.IntN(2) == 1
	case "integer":
		lo, hi := int64(-1000), int64(1000)
		if m, ok := s["minimum"].(int64); ok {
			lo = m
		}
		if m, ok := s["minimum"].(float64); ok {
			lo = int64(m)
		}
		if m, ok := s["maximum"].(int64); ok {
			hi = m
		}
		if m, ok := s["maximum"].(float64); ok {
			hi = int64(m)
		}
		if hi < lo {
			hi = lo
		}
		return lo + r.Int64N(hi-lo+1)
	case "number":
		return float64(r.IntN(20000)-10000) / 8
	case "string":
		alphabet := []rune("abcXYZ019 _-äö€😀\"\\\n")
		n := r.IntN(12)
		b := make([]rune, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	case "array":
		items, _ := s["items"].(map[string]any)
		n := r.IntN(4)
		out := make([]any, n)
		for i := range out {
			out[i] = genValue(r, items, depth+1)
		}
		return out
	}
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ps, _ := props[k].(map[string]any)
		if depth < 4 {
			out[k] = genValue(r, ps, depth+1)
		}
	}
	return out
}

type outcome struct {
	Value any
	Code  abi.ErrorCode
}

// TestDifferentialCoreModules runs every sample core module in build/wasm on
// both engines with fixed and generated inputs and requires the same values
// and error codes.
func TestDifferentialCoreModules(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(t), "build", "wasm")
	files, _ := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if len(files) == 0 {
		t.Fatalf("no modules in %s: run `make samples`", dir)
	}
	wz := newTestLoader(t, Config{}, nil)
	wt := newWasmtimeTestLoader(t, Config{})
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".wasm")
		t.Run(name, func(t *testing.T) {
			pa, err := wz.Load(context.Background(), abi.Source{Path: f})
			if err != nil {
				t.Fatal(err)
			}
			defer pa.Close()
			pb, err := wt.Load(context.Background(), abi.Source{Path: f})
			if err != nil {
				t.Fatal(err)
			}
			defer pb.Close()
			if !reflect.DeepEqual(pa.Describe(), pb.Describe()) {
				t.Fatalf("ToolRegister differs:\nwazero   %+v\nwasmtime %+v", pa.Describe(), pb.Describe())
			}
			r := rand.New(rand.NewPCG(1, uint64(len(name))))
			n := 0
			for _, tool := range pa.Describe().Tools {
				inputs := []any{map[string]any{}, nil, "not an object", map[string]any{"unexpected": []any{int64(1)}}}
				for range 25 {
					inputs = append(inputs, genValue(r, tool.Parameters, 0))
				}
				for _, in := range inputs {
					if tool.Name == "sleep" {
						// 0: sleep busy-waits on the guest's virtual
						// clock (1 ns a reading), where even 1 ms is a
						// million host calls, each slower on wasmtime.
						in = map[string]any{"ms": int64(0)}
					}
					run := func(p abi.Provider) outcome {
						v, err := call(p, newFakeEnv(p, 4), tool.Name, in, 5*time.Second)
						v, _ = abi.Normalize(v)
						return outcome{v, abi.CodeOf(err)}
					}
					a, b := run(pa), run(pb)
					n++
					if !reflect.DeepEqual(a, b) {
						t.Errorf("%s %s(%v):\nwazero   %#v\nwasmtime %#v", name, tool.Name, in, a, b)
					}
				}
			}
			t.Logf("%s: %d calls agree", name, n)
		})
	}
}

// TestWasmtimeGuestOutput: a wasmtime guest's stdout reaches the host log
// under the same per-provider budget as on wazero, a failed _initialize
// quotes the end of the guest's stderr, and a closed provider leaves no
// pipe open.
func TestWasmtimeGuestOutput(t *testing.T) {
	// pipes returns the open pipe descriptors (wasmtime itself keeps
	// memfds and epoll descriptors for its engine and module images).
	pipes := func() map[string]bool {
		es, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		m := map[string]bool{}
		for _, e := range es {
			if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); strings.HasPrefix(l, "pipe:") {
				m[e.Name()+" "+l] = true
			}
		}
		return m
	}
	before := pipes()
	logs := &countingHandler{}
	l, err := NewWasmtimeLoader(Options{Config: Config{CacheDir: t.TempDir()}, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, basicWAT("org.test.basic", 2))})
	if err != nil {
		t.Fatal(err)
	}
	v, err := call(p, newFakeEnv(p, 5), "spam", map[string]any{}, 10*time.Second)
	if err != nil || v.(map[string]any)["ok"] != true {
		t.Fatalf("spam: %v %v", v, err)
	}
	// 4 MiB written; the log receives it through a pipe, at most the
	// 64 KiB budget (plus one line).
	deadline := time.Now().Add(10 * time.Second)
	for logs.bytes.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if b := logs.bytes.Load(); b > 70<<10 || b == 0 {
		t.Fatalf("logged %d bytes of guest output", b)
	}
	p.Close()

	for _, c := range loadRejectCases(t) {
		if c.name != "init panics" {
			continue
		}
		_, err := l.Load(context.Background(), abi.Source{Path: writeFile(t, "g.wasm", c.data)})
		if err == nil || !strings.Contains(err.Error(), "the guest's stderr ended with: panic: aios.Schema: json: invalid character '}' | goroutine 1 [running]: | main.init at main.go:7") {
			t.Fatalf("the load error does not quote the guest's stderr: %v", err)
		}
	}
	l.Close()
	leaked := func() (n []string) {
		for k := range pipes() {
			if !before[k] {
				n = append(n, k)
			}
		}
		return n
	}
	deadline = time.Now().Add(5 * time.Second)
	for len(leaked()) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := leaked(); len(n) > 0 {
		t.Errorf("pipes left open after the providers closed: %v", n)
	}
}

// TestWasmtimeProbeFaults: faults a probe of the wasmtime engine found,
// each against what wazero does.
func TestWasmtimeProbeFaults(t *testing.T) {
	t.Run("first call long after the load", func(t *testing.T) {
		// The call's deadline used to be set after aios_alloc ran, so
		// aios_alloc ran under the load's spent deadline and trapped.
		l := newWasmtimeTestLoader(t, Config{LoadTimeout: 300 * time.Millisecond})
		p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, basicWAT("org.test.basic", 2))})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		time.Sleep(600 * time.Millisecond)
		big := strings.Repeat("x", 5000) // past the first input buffer: aios_alloc runs
		if v, err := call(p, newFakeEnv(p, 5), "echo", map[string]any{"pad": big}, 5*time.Second); err != nil {
			t.Fatalf("first call after the load timeout passed: %v %v", v, err)
		}
	})
	t.Run("a second memory is refused", func(t *testing.T) {
		if _, err := exec.LookPath("wat2wasm"); err != nil {
			t.Skip("no wat2wasm")
		}
		dir := t.TempDir()
		wat := filepath.Join(dir, "mm.wat")
		src := strings.Replace(abiSkeleton(`(i64.const 0)`), `(memory (export "memory") 1)`, `(memory (export "memory") 1) (memory $extra 1)`, 1)
		if err := os.WriteFile(wat, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "mm.wasm")
		if b, err := exec.Command("wat2wasm", "--enable-multi-memory", wat, "-o", out).CombinedOutput(); err != nil {
			t.Fatalf("wat2wasm: %v %s", err, b)
		}
		l := newWasmtimeTestLoader(t, Config{})
		if p, err := l.Load(context.Background(), abi.Source{Path: out}); err == nil {
			p.Close()
			t.Fatal("a module with two memories loaded: the memory limit is per memory on wasmtime")
		}
	})
	t.Run("corrupt cache entry", func(t *testing.T) {
		dir := t.TempDir()
		path := buildWAT(t, basicWAT("org.test.cache", 2))
		l := newWasmtimeTestLoader(t, Config{CacheDir: dir})
		p, err := l.Load(context.Background(), abi.Source{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		entries, _ := filepath.Glob(filepath.Join(dir, "*.cwasm"))
		if len(entries) != 1 {
			t.Fatalf("cache entries %v", entries)
		}
		b, _ := os.ReadFile(entries[0])
		for i := len(b) / 4; i < len(b)/2; i++ {
			b[i] = 0xcc // int3: run, it would stop the host with SIGTRAP
		}
		if err := os.WriteFile(entries[0], b, 0o600); err != nil {
			t.Fatal(err)
		}
		l2 := newWasmtimeTestLoader(t, Config{CacheDir: dir})
		p, err = l2.Load(context.Background(), abi.Source{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if v, err := call(p, newFakeEnv(p, 5), "const", map[string]any{}, 5*time.Second); err != nil || v.(map[string]any)["ok"] != true {
			t.Fatalf("call after a corrupt cache entry: %v %v", v, err)
		}
	})
	t.Run("large instances retired", func(t *testing.T) {
		l := newWasmtimeTestLoader(t, Config{PoolSize: 2, MemoryLimitPages: 8})
		for _, tc := range []struct {
			pages, idle int
		}{{7, 0}, {2, 1}} { // 7 of 8 pages: past three quarters
			p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, basicWAT(fmt.Sprintf("org.test.p%d", tc.pages), tc.pages))})
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if _, err := call(p, newFakeEnv(p, 5), "const", map[string]any{}, 5*time.Second); err != nil {
					t.Fatal(err)
				}
			}
			if n := p.(*wtProvider).Instances(); n != tc.idle {
				t.Errorf("%d pages: %d instances kept, want %d", tc.pages, n, tc.idle)
			}
			p.Close()
		}
	})
	t.Run("table growth bounded", func(t *testing.T) {
		l := newWasmtimeTestLoader(t, Config{})
		p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, tableWAT(1))})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		v, err := call(p, newFakeEnv(p, 2), "grow", map[string]any{}, 10*time.Second)
		if err != nil || v.(map[string]any)["refused"] != true {
			t.Fatalf("grow = %v, %v; want table.grow refused", v, err)
		}
	})
	t.Run("tables bounded in all", func(t *testing.T) {
		l := newWasmtimeTestLoader(t, Config{})
		p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, manyTablesWAT(100, ""))})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		v, err := call(p, newFakeEnv(p, 2), "grow", map[string]any{}, 30*time.Second)
		if err != nil || v.(map[string]any)["refused"] != true {
			t.Fatalf("grow = %v, %v; want a table.grow refused", v, err)
		}
	})
	t.Run("cache entry of another module", func(t *testing.T) {
		dir := t.TempDir()
		a, b := buildWAT(t, basicWAT("org.test.aaa", 2)), buildWAT(t, basicWAT("org.test.bbb", 2))
		l := newWasmtimeTestLoader(t, Config{CacheDir: dir})
		for _, path := range []string{a, b} {
			p, err := l.Load(context.Background(), abi.Source{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			p.Close()
		}
		entries, _ := filepath.Glob(filepath.Join(dir, "*.cwasm"))
		if len(entries) != 2 {
			t.Fatalf("cache entries %v", entries)
		}
		data, _ := os.ReadFile(entries[0])
		if err := os.WriteFile(entries[1], data, 0o600); err != nil {
			t.Fatal(err)
		}
		l2 := newWasmtimeTestLoader(t, Config{CacheDir: dir})
		for _, path := range []string{a, b} {
			p, err := l2.Load(context.Background(), abi.Source{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{a: "org.test.aaa", b: "org.test.bbb"}[path]
			if got := p.Describe().Provider.ID; got != want {
				t.Fatalf("%s loaded as %s: another module's cache entry ran", want, got)
			}
			p.Close()
		}
	})
	t.Run("no instance after Close", func(t *testing.T) {
		l := newWasmtimeTestLoader(t, Config{PoolSize: 1})
		p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, basicWAT("org.test.closing", 2))})
		if err != nil {
			t.Fatal(err)
		}
		busy := make(chan struct{})
		go func() {
			defer close(busy)
			_, _ = call(p, newFakeEnv(p, 2), "loop", map[string]any{}, 1500*time.Millisecond)
		}()
		time.Sleep(200 * time.Millisecond)
		waiting := make(chan error, 1)
		go func() {
			_, err := call(p, newFakeEnv(p, 2), "const", map[string]any{}, 5*time.Second)
			waiting <- err
		}()
		time.Sleep(100 * time.Millisecond)
		p.Close()
		// The descriptors the output pipes had are free now: a file the
		// host opens may get one of them.
		files := make([]*os.File, 0, 8)
		for i := range 8 {
			f, err := os.Create(filepath.Join(t.TempDir(), fmt.Sprint("precious", i)))
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.WriteString("PRECIOUS")
			files = append(files, f)
		}
		<-busy
		if err := <-waiting; err == nil {
			t.Error("a call that waited for an instance got a new one after Close")
		}
		for _, f := range files {
			info, _ := f.Stat()
			if info.Size() != int64(len("PRECIOUS")) {
				t.Errorf("%s is %d bytes after the provider closed: guest output reached a host file", f.Name(), info.Size())
			}
			f.Close()
		}
	})
	t.Run("trap reasons", func(t *testing.T) {
		l := newWasmtimeTestLoader(t, Config{})
		p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, basicWAT("org.test.trap", 2))})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		_, err = call(p, newFakeEnv(p, 5), "trap", map[string]any{}, 5*time.Second)
		if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "unreachable") {
			t.Fatalf("trap: %v, want ProviderCrashed naming unreachable", err)
		}
	})
}

// TestWasmtimeClocksAndSleep: on wasmtime too, a guest's clocks are fake
// unless it holds Clock (or runtimes.wasm.clock is real), its random
// source deterministic unless it holds Random, and a granted sleep ends
// at the call's deadline. (wasmtime's own WASI gave every guest real
// clocks and randomness, and its sleep held the instance, and the pool,
// for as long as the guest asked.)
func TestWasmtimeClocksAndSleep(t *testing.T) {
	path := buildWAT(t, sleepWAT()) // asks for Clock
	clockGrant := abi.Grants{{Kind: CapClock}}
	for _, tc := range []struct {
		name   string
		cfg    Config
		grants abi.Grants
		real   bool
	}{
		{"no grant", Config{}, nil, false},
		{"granted", Config{}, clockGrant, true},
		{"clock: real", Config{Clock: "real"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.PoolSize = 1
			l := newWasmtimeTestLoader(t, tc.cfg)
			p, err := l.Load(context.Background(), abi.Source{Path: path, Grants: tc.grants})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			sys := p.(*wtProvider).sys
			if sys.realClock.Load() != tc.real || sys.realRandom.Load() {
				t.Fatalf("real clock %v random %v, want %v false", sys.realClock.Load(), sys.realRandom.Load(), tc.real)
			}
			if !tc.real {
				if w, _ := sys.now(0, func() *wtInstance { return &wtInstance{} }); w < fakeEpochNanos || w > fakeEpochNanos+int64(time.Hour) {
					t.Fatalf("fake wall clock %d", w)
				}
			}
			// Three sleeps of 600 s, one after the other on the one
			// instance: each ends at its 200 ms deadline (or at once with
			// a fake clock), so none waits for another.
			start := time.Now()
			for range 3 {
				_, err := call(p, newFakeEnv(p, 2), "sleep", map[string]any{}, 200*time.Millisecond)
				if err != nil && abi.CodeOf(err) != abi.Timeout {
					t.Fatalf("sleep: %v, want a result or Timeout", err)
				}
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("three sleeps with 200ms deadlines took %v", took)
			}
		})
	}
	s := newWtSys()
	a, b := make([]byte, 16), make([]byte, 16)
	s.random(func() *wtInstance { return &wtInstance{} }, a)
	newWtSys().random(func() *wtInstance { return &wtInstance{} }, b)
	if !bytes.Equal(a, b) {
		t.Error("the fake random source is not deterministic")
	}
}
