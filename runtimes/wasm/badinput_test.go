package wasm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/wasm/precompile"
)

func writeFile(t *testing.T, name string, data []byte) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadRejectCase is one module every engine must refuse at load, with a
// part of the error it must give.
type loadRejectCase struct {
	name string
	data []byte
	want string
}

// loadRejectCases is the WASM-core bad-input list, shared by the engines
// (TestLoadRejects, and TestWasmtimeLoadRejects under -tags wasmtime).
func loadRejectCases(t *testing.T) []loadRejectCase {
	good, err := os.ReadFile(buildWAT(t, basicWAT("org.test.basic", 2)))
	if err != nil {
		t.Fatal(err)
	}
	return []loadRejectCase{
		{"not wasm", []byte("#!/bin/sh\necho hi\n"), "not a WebAssembly binary"},
		{"empty", nil, "not a WebAssembly binary"},
		{"truncated", good[:len(good)/2], "the WebAssembly module is cut short"},
		{"component", []byte("\x00asm\x0d\x00\x01\x00"), "is a WebAssembly component; load it with the component runtime"},
		{"future version", []byte("\x00asm\x02\x00\x00\x00"), "unsupported WebAssembly header"},
		{"missing exports", mustWAT(t, `(module (memory (export "memory") 1))`), "missing export(s) aios_alloc, aios_register, aios_call"},
		{"no memory", mustWAT(t, `(module (func (export "aios_alloc") (param i32) (result i32) (i32.const 0))
			(func (export "aios_register") (result i64) (i64.const 0)) (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`), "missing export(s) memory"},
		// An ABI name exported as another kind is said so, not
		// "missing" (the author sees the name there).
		{"memory is a function", mustWAT(t, `(module (func (export "memory")) (func (export "aios_alloc") (param i32) (result i32) (i32.const 0))
			(func (export "aios_register") (result i64) (i64.const 0)) (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`), "export memory is a function, want a memory"},
		{"function is a memory", mustWAT(t, `(module (memory $m 1) (export "memory" (memory $m)) (export "aios_call" (memory $m))
			(func (export "aios_alloc") (param i32) (result i32) (i32.const 0)) (func (export "aios_register") (result i64) (i64.const 0)))`), "export aios_call is a memory, want a function"},
		{"wrong signature", mustWAT(t, `(module (memory (export "memory") 1) (func (export "aios_alloc") (param i32) (result i32) (i32.const 0))
			(func (export "aios_register") (result i32) (i32.const 0)) (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`), "export aios_register has type () -> (i32), want () -> (i64)"},
		{"foreign import", mustWAT(t, `(module (import "env" "foo" (func)) (memory (export "memory") 1))`), "imports env.foo"},
		{"unknown aios import", mustWAT(t, `(module (import "aios" "launch_missiles" (func)) (memory (export "memory") 1))`), "aios.launch_missiles, which ABI v1 does not define"},
		{"register out of bounds", mustWAT(t, abiSkeleton(`(i64.const 0x0000ffff00001000)`)), "outside the guest's"},
		{"register garbage", mustWAT(t, abiSkeleton(`(i64.const 0x0000000000000004)`)), "unknown encoding"},
		// An aios_register that returns 0 (a stub, a guest whose
		// registration is not written yet) was refused "aios_register
		// result is empty (ptr 0, len 0)", not saying what it must return.
		{"register returns nothing", mustWAT(t, abiSkeleton(`(i64.const 0)`)),
			"aios_register returned an empty buffer (ptr 0, len 0): it must return the packed buffer (ptr<<32 | len) of the encoded ToolRegister"},
		// 12 bytes that declare four billion tools: the MessagePack decoder
		// allocated that many before reading one, and the process died.
		{"register declares 2^32 tools", mustWAT(t, `(module (memory (export "memory") 1)
			(data (i32.const 2048) "\81\a5tools\dd\ff\ff\ff\ff")
			(func (export "aios_alloc") (param i32) (result i32) (i32.const 1024))
			(func (export "aios_register") (result i64) (i64.const 0x000008000000000c))
			(func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`), "container of 4294967295 items is longer than the remaining 0 bytes at byte 12"},
		{"memory above limit", mustWAT(t, `(module (memory (export "memory") 100))`), "memory"},
		{"trap in register", mustWAT(t, abiSkeleton(`unreachable`)), "aios_register trapped"},
		// A Go guest whose init panics (a bad aios.Schema) writes the panic
		// to stderr and exits: the load error quotes the end of stderr,
		// which the log shows only at Info.
		{"init panics", mustWAT(t, `(module
			(import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
			(memory (export "memory") 1)
			(data (i32.const 100) "panic: aios.Schema: json: invalid character '}'\ngoroutine 1 [running]:\nmain.init at main.go:7\n")
			(data (i32.const 0) "\64\00\00\00\5e\00\00\00")
			(func (export "_initialize") (drop (call $w (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 16))) unreachable)
			(func (export "aios_alloc") (param i32) (result i32) (i32.const 1024))
			(func (export "aios_register") (result i64) (i64.const 0))
			(func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`),
			"_initialize: "},
	}
}

func TestLoadRejects(t *testing.T) {
	cases := loadRejectCases(t)
	l := newTestLoader(t, Config{MemoryLimitPages: 50}, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := l.Load(context.Background(), abi.Source{Path: writeFile(t, "g.wasm", c.data)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant an error containing %q", err, c.want)
			}
			if c.name == "init panics" && !strings.Contains(err.Error(), "the guest's stderr ended with: panic: aios.Schema: json: invalid character '}' | goroutine 1 [running]: | main.init at main.go:7") {
				t.Fatalf("the load error does not quote the guest's stderr: %v", err)
			}
			if c.name == "component" && !errors.Is(err, ErrComponent) {
				t.Fatalf("component error does not wrap ErrComponent: %v", err)
			}
		})
	}
}

func abiSkeleton(register string) string {
	return `(module (memory (export "memory") 1) (func (export "aios_alloc") (param i32) (result i32) (i32.const 1024))
		(func (export "aios_register") (result i64) ` + register + `)
		(func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`
}

func mustWAT(t *testing.T, src string) []byte {
	b, err := os.ReadFile(buildWAT(t, src))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// countingHandler counts log records and bytes.
type countingHandler struct {
	records, bytes atomic.Int64
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.records.Add(1)
	h.bytes.Add(int64(len(r.Message)))
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

func TestBadGuestCalls(t *testing.T) {
	logs := &countingHandler{}
	l := newTestLoader(t, Config{PoolSize: 2, MemoryLimitPages: 64, DeadlineGranularity: 2 * time.Millisecond}, slog.New(logs))
	p := load(t, l, buildWAT(t, basicWAT("org.test.basic", 2)))
	if p.Describe().Provider.Runtime != abi.RuntimeWASM || len(p.Describe().Tools) != 11 {
		t.Fatalf("register: %+v", p.Describe())
	}
	env := newFakeEnv(p, 5)
	cases := []struct {
		tool string
		code abi.ErrorCode
		msg  string
	}{
		{"trap", abi.ProviderCrashed, "unreachable"},
		{"oob", abi.ProviderCrashed, "outside the guest's"},
		{"junk", abi.ProviderError, "malformed JSON"},
		{"xenc", abi.ProviderError, "unknown encoding"},
		{"memgrow", abi.ProviderCrashed, "trapped"},
		{"loop", abi.Timeout, "deadline"},
		{"nested", abi.DepthExceeded, "limit is 5"},
		{"badreq", abi.InvalidRequest, "outside the guest's"},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			start := time.Now()
			d := 5 * time.Second
			if c.code == abi.Timeout {
				d = 100 * time.Millisecond
			}
			_, err := call(p, env, c.tool, map[string]any{}, d)
			if abi.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v, want %s containing %q", err, c.code, c.msg)
			}
			if c.code == abi.Timeout {
				if el := time.Since(start); el > time.Second {
					t.Fatalf("loop stopped after %v, deadline was 100ms", el)
				}
			}
			// The host keeps serving, with a fresh instance when needed.
			v, err := call(p, env, "const", map[string]any{}, time.Second)
			if err != nil || v.(map[string]any)["ok"] != true {
				t.Fatalf("after %s: %v %v", c.tool, v, err)
			}
		})
	}
	t.Run("spam", func(t *testing.T) {
		v, err := call(p, env, "spam", map[string]any{}, 10*time.Second)
		if err != nil || v.(map[string]any)["ok"] != true {
			t.Fatalf("%v %v", v, err)
		}
		// 4 MiB written; at most the 64 KiB budget (plus one line) logged.
		if b := logs.bytes.Load(); b > 70<<10 || b == 0 {
			t.Fatalf("logged %d bytes of guest output", b)
		}
	})
	t.Run("write", func(t *testing.T) {
		v, err := call(p, env, "write", map[string]any{}, time.Second)
		if err != nil || !strings.HasPrefix(v.(map[string]any)["id"].(string), "sha256:") {
			t.Fatalf("%v %v", v, err)
		}
		o, err := env.SpaceRead(context.Background(), "s1", v.(map[string]any)["id"].(string))
		if err != nil || string(o.Data) != "hello" {
			t.Fatalf("%q %v", o.Data, err)
		}
	})
}

func TestLoopDiscardsInstance(t *testing.T) {
	l := newTestLoader(t, Config{PoolSize: 1, DeadlineGranularity: time.Millisecond}, nil)
	p := load(t, l, buildWAT(t, basicWAT("org.test.loop", 2)))
	env := newFakeEnv(p, 5)
	before := p.firstIdle()
	_, err := call(p, env, "loop", nil, 30*time.Millisecond)
	if abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("%v", err)
	}
	if n := p.Instances(); n != 0 {
		t.Fatalf("%d instances after the interrupted call, want 0 (discarded)", n)
	}
	if _, err := call(p, env, "const", nil, time.Second); err != nil {
		t.Fatal(err)
	}
	if after := p.firstIdle(); after == before || after == nil {
		t.Fatal("the next call was not served by a fresh instance")
	}
}

func (p *Provider) firstIdle() *instance {
	if idle := p.pool.idle(); len(idle) > 0 {
		return idle[0]
	}
	return nil
}

func TestCancelInterrupts(t *testing.T) {
	l := newTestLoader(t, Config{DeadlineGranularity: time.Millisecond}, nil)
	p := load(t, l, buildWAT(t, basicWAT("org.test.cancel", 2)))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	c := &abi.ToolCall{ID: "c", Tool: "loop", Deadline: time.Now().Add(10 * time.Second)}
	env := newFakeEnv(p, 5)
	env.call = c
	_, err := p.Call(ctx, c, env)
	if abi.CodeOf(err) != abi.Cancelled {
		t.Fatalf("%v", err)
	}
}

func TestClosedProvider(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, buildWAT(t, basicWAT("org.test.closed", 2)))
	p.Close()
	if _, err := call(p, newFakeEnv(p, 1), "const", nil, time.Second); abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("%v", err)
	}
}

// bumpAlloc is a guest's aios_alloc: a bump allocator over $heap.
const bumpAlloc = `  (func (export "aios_alloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (local.get $p) (local.get $n)))
    (local.get $p))
`

// sleepWAT is a guest whose one tool sleeps 600 s through WASI poll_oneoff
// (a relative clock subscription) and then returns {"ok":true}.
func sleepWAT() string {
	reg, packedReg := watData(1024, `{"format":1,"provider":{"id":"org.test.sleeper","capabilities":["Clock"]},"tools":[{"name":"sleep"}]}`)
	res, packedRes := watData(4096, `{"value":{"ok":true}}`)
	return fmt.Sprintf(`(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  %s%s
%s  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64)
    (i64.store (i32.const 256) (i64.const 7))               ;; userdata
    (i32.store8 (i32.const 264) (i32.const 0))              ;; tag: clock
    (i32.store (i32.const 272) (i32.const 1))               ;; monotonic clock
    (i64.store (i32.const 280) (i64.const 600000000000))    ;; 600 s, relative
    (i64.store (i32.const 288) (i64.const 0))
    (i32.store16 (i32.const 296) (i32.const 0))
    (drop (call $poll (i32.const 256) (i32.const 320) (i32.const 1) (i32.const 384)))
    (i64.const %d))
)`, reg, res, bumpAlloc, packedReg, packedRes)
}

// A guest sleeping in WASI with a real clock is held no longer than its
// deadline: the runtime can promise the host that it keeps deadlines
// (abi.DeadlineKeeper), so the host calls it without a watcher.
func TestRealClockSleepEndsAtDeadline(t *testing.T) {
	for _, clock := range []string{"real", "fake"} {
		t.Run(clock, func(t *testing.T) {
			l := newTestLoader(t, Config{Clock: clock}, nil)
			p := load(t, l, buildWAT(t, sleepWAT()))
			if !p.KeepsDeadlines() {
				t.Fatal("KeepsDeadlines = false")
			}
			start := time.Now()
			_, err := call(p, newFakeEnv(p, 2), "sleep", map[string]any{}, 100*time.Millisecond)
			if took := time.Since(start); took > 2*time.Second {
				t.Fatalf("sleep held the call %v past a 100ms deadline", took)
			}
			if err != nil && abi.CodeOf(err) != abi.Timeout {
				t.Fatalf("sleep: %v, want a result or Timeout", err)
			}
		})
	}
}

// TestSlowCompileStopped: a module wazero would take about a minute to
// compile (one function of 60 000 loops, 180 KB) fails to load after
// compile_timeout with an error naming the function, and holds no other
// load meanwhile.
func TestSlowCompileStopped(t *testing.T) {
	l := newTestLoader(t, Config{CompileTimeout: 2 * time.Second}, nil)
	slow := writeFile(t, "slow.wasm", testutil.CoreModule(testutil.Repeat(60000, 0x03, 0x40, 0x0b)))
	good := buildWAT(t, basicWAT("org.test.basic", 2))
	type result struct {
		err  error
		took time.Duration
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		_, err := l.Load(context.Background(), abi.Source{Path: slow})
		done <- result{err, time.Since(start)}
	}()
	time.Sleep(100 * time.Millisecond)
	p := load(t, l, good)
	goodTook := time.Since(start)
	if _, err := call(p, newFakeEnv(p, 5), "echo", map[string]any{"x": 1}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err == nil {
		t.Fatal("the slow module loaded")
	}
	for _, want := range []string{"slow.wasm", "longer than 2s", "compile_timeout", "function 0 has 60000 control-flow nodes"} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("error %q lacks %q", r.err, want)
		}
	}
	t.Logf("slow load failed after %v; a good load beside it took %v", r.took, goodTook)
	if r.took > 20*time.Second {
		t.Errorf("the slow load took %v with a 2s compile timeout", r.took)
	}
	if goodTook >= r.took {
		t.Errorf("the good module's load (%v) waited for the slow one (%v)", goodTook, r.took)
	}
}

// TestLoadThroughCompilerProcess: a module sent to a compiler process (here
// every module: a work budget of 1) loads from the cache it filled and
// serves calls like any other.
func TestLoadThroughCompilerProcess(t *testing.T) {
	dir := t.TempDir()
	l := newTestLoader(t, Config{CacheDir: dir}, nil)
	l.workBudget = 1
	before := precompile.Spawned()
	p := load(t, l, buildWAT(t, basicWAT("org.test.basic", 2)))
	if n := precompile.Spawned() - before; n != 1 {
		t.Fatalf("%d compiler processes started, want 1", n)
	}
	out, err := call(p, newFakeEnv(p, 5), "echo", map[string]any{"x": 1}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := out.(map[string]any); !ok || m["ok"] != true {
		t.Fatalf("echo = %#v", out)
	}
	entries, err := filepath.Glob(filepath.Join(dir, "wazero-*", "*"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no compiled code in the cache %s: %v", dir, err)
	}
}

// TestLoadTimeoutStopsLoopingLoad: a guest whose _initialize or
// aios_register never returns fails the load after
// runtimes.wasm.load_timeout; the load used to hang for good (the
// watchdog does not know a provider until it has loaded).
func TestLoadTimeoutStopsLoopingLoad(t *testing.T) {
	l := newTestLoader(t, Config{LoadTimeout: 300 * time.Millisecond}, nil)
	checks := newTestLoader(t, Config{LoadTimeout: 300 * time.Millisecond}, nil)
	checks.noInstrument = true
	startLoop := strings.TrimSuffix(strings.TrimSpace(abiSkeleton(`(i64.const 0)`)), ")") + ` (func $s (loop $l (br $l))) (start $s))`
	for name, src := range map[string]string{
		// A start function runs while the module instantiates, before
		// there is an instance to stop: it used to hang the load for good.
		"start":          startLoop,
		"start (checks)": startLoop,
		"register":       abiSkeleton(`(loop $l (br $l)) (i64.const 0)`),
		"initialize": `(module (memory (export "memory") 1)
			(func (export "_initialize") (loop $l (br $l)))
			(func (export "aios_alloc") (param i32) (result i32) (i32.const 1024))
			(func (export "aios_register") (result i64) (i64.const 0))
			(func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`,
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, "loop.wasm", mustWAT(t, src))
			ld := l
			if strings.HasSuffix(name, "(checks)") {
				ld = checks
			}
			done := make(chan error, 1)
			go func() { _, err := ld.Load(context.Background(), abi.Source{Path: path}); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "did not finish within runtimes.wasm.load_timeout (300ms)") {
					t.Fatalf("err = %v, want the load timeout", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the load hangs")
			}
		})
	}
}

// TestLargeInstancesRetired: an instance whose memory has grown past three
// quarters of the limit is not reused (a Go guest's heap that is never
// given back would run out in a later call); the next call gets a fresh
// one, and the call itself succeeds.
func TestLargeInstancesRetired(t *testing.T) {
	l := newTestLoader(t, Config{PoolSize: 2, MemoryLimitPages: 8}, nil)
	big := load(t, l, buildWAT(t, basicWAT("org.test.big", 7))) // 7 of 8 pages
	small := load(t, l, buildWAT(t, basicWAT("org.test.small", 2)))
	for _, tc := range []struct {
		p    *Provider
		idle int
	}{{big, 0}, {small, 1}} {
		env := newFakeEnv(tc.p, 5)
		for range 3 {
			if _, err := call(tc.p, env, "const", map[string]any{}, 5*time.Second); err != nil {
				t.Fatal(err)
			}
		}
		if n := tc.p.Instances(); n != tc.idle {
			t.Errorf("%s: %d instances kept after its calls, want %d", tc.p.Describe().Provider.ID, n, tc.idle)
		}
	}
}

// TestUnusableCompileCache: the compile cache is an optimisation. A cache
// whose entries cannot be read back (here every entry corrupted, and the
// entry's path then a directory, so that neither reading nor writing it
// works) costs compile time: the module loads, with one warning (a corrupt
// entry is compiled again, the cache kept), both in
// the host and through a compiler process. A cache directory that cannot
// be made at all leaves the loader working without one.
func TestUnusableCompileCache(t *testing.T) {
	wasmPath := buildWAT(t, basicWAT("org.test.basic", 2))
	for _, mode := range []string{"corrupt", "directory"} {
		for _, budget := range []uint64{0, 1} { // 1: through a compiler process
			t.Run(fmt.Sprintf("%s/budget%d", mode, budget), func(t *testing.T) {
				dir := t.TempDir()
				l := newTestLoader(t, Config{CacheDir: dir}, nil)
				l.workBudget = budget
				load(t, l, wasmPath)
				entries, _ := filepath.Glob(filepath.Join(dir, "wazero-*", "*"))
				if len(entries) == 0 {
					t.Fatalf("no cache entries in %s", dir)
				}
				for _, e := range entries {
					if mode == "corrupt" {
						if err := os.WriteFile(e, []byte("WAZEVO\x05junk"), 0o600); err != nil {
							t.Fatal(err)
						}
						continue
					}
					if err := os.Remove(e); err != nil {
						t.Fatal(err)
					}
					if err := os.MkdirAll(filepath.Join(e, "x"), 0o700); err != nil {
						t.Fatal(err)
					}
				}
				var logs bytes.Buffer
				l2 := newTestLoader(t, Config{CacheDir: dir}, slog.New(slog.NewTextHandler(&logs, nil)))
				l2.workBudget = budget
				p, err := l2.Load(context.Background(), abi.Source{Path: wasmPath})
				if err != nil {
					t.Fatalf("load with an unusable cache: %v", err)
				}
				defer p.Close()
				out, err := call(p.(*Provider), newFakeEnv(p, 5), "echo", map[string]any{"x": 1}, 5*time.Second)
				if m, ok := out.(map[string]any); err != nil || !ok || m["ok"] != true {
					t.Fatalf("echo = %#v, %v", out, err)
				}
				// A corrupt entry is removed and compiled again, the cache
				// kept (TestWazeroCacheDamagedHeader); before, the
				// loader compiled without the cache for the rest of its life.
				warning := "the compile cache cannot be used"
				if mode == "corrupt" {
					warning = "their modules are compiled again"
				}
				if !strings.Contains(logs.String(), warning) {
					t.Errorf("no warning about the cache; log:\n%s", logs.String())
				}
				// Later loads skip the cache (or use it again) without failing again.
				p2, err := l2.Load(context.Background(), abi.Source{Path: buildWAT(t, basicWAT("org.test.other", 3))})
				if err != nil {
					t.Fatalf("second load: %v", err)
				}
				p2.Close()
				if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
					t.Errorf("%d warnings about the cache, want 1; log:\n%s", n, logs.String())
				}
			})
		}
	}
	t.Run("cannot make the directory", func(t *testing.T) {
		file := writeFile(t, "not-a-dir", []byte("x"))
		var logs bytes.Buffer
		l := newTestLoader(t, Config{CacheDir: filepath.Join(file, "cache")}, slog.New(slog.NewTextHandler(&logs, nil)))
		load(t, l, wasmPath)
		if !strings.Contains(logs.String(), "the compile cache cannot be used") {
			t.Errorf("no warning about the cache; log:\n%s", logs.String())
		}
	})
}

// tableWAT is a guest whose tool "grow" grows its funcref table by 200
// million elements and answers whether table.grow failed (-1).
func tableWAT(minElems int) string { return tablesWAT(1, minElems, 200000000, "") }

// tablesWAT is a guest with n funcref tables of minElems elements whose
// tool "grow" grows each by grow elements and answers refused when any
// table.grow fails; extra is added to the module (an export).
func tablesWAT(n, minElems, grow int, extra string) string {
	reg, packedReg := watData(1024, `{"format":1,"provider":{"id":"org.test.tables"},"tools":[{"name":"grow"}]}`)
	failed, packedFailed := watData(4096, `{"value":{"refused":true}}`)
	grew, packedGrew := watData(8192, `{"value":{"refused":false}}`)
	var tables, grows strings.Builder
	for i := range n {
		fmt.Fprintf(&tables, "  (table $t%d %d funcref)\n", i, minElems)
		fmt.Fprintf(&grows, "    (if (i32.eq (table.grow $t%d (ref.null func) (i32.const %d)) (i32.const -1)) (then (local.set $refused (i32.const 1))))\n", i, grow)
	}
	return fmt.Sprintf(`(module
  (memory (export "memory") 2)
%s  (global $heap (mut i32) (i32.const 65536))
  %s%s%s
  %s
%s  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64)
    (local $refused i32)
%s    (if (result i64) (local.get $refused) (then (i64.const %d)) (else (i64.const %d))))
)`, tables.String(), reg, failed, grew, extra, bumpAlloc, packedReg, grows.String(), packedFailed, packedGrew)
}

// TestTableGrowBounded: tables are host memory the memory limit does not
// cover; a rewritten module's tables hold at most MaxTableElements (a
// guest growing a table by 200 million elements took 1.6 GB of the host),
// and a module whose table starts above it is refused.
func TestTableGrowBounded(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, buildWAT(t, tableWAT(1)))
	v, err := call(p, newFakeEnv(p, 2), "grow", map[string]any{}, 10*time.Second)
	if err != nil || v.(map[string]any)["refused"] != true {
		t.Fatalf("grow = %v, %v; want table.grow refused", v, err)
	}
	_, err = l.Load(context.Background(), abi.Source{Path: buildWAT(t, tableWAT(2_000_000))})
	if err == nil || !strings.Contains(err.Error(), "start with 2000000 elements") {
		t.Fatalf("load of a 2M-element table: %v", err)
	}
}

// TestPruneCache: a loader starting prunes its compile cache: what no
// loader of this build reads (an older instrumentation's folder, another
// wazero version's code, unsealed wasmtime entries), then the oldest files
// past the size bound. (Nothing was ever removed: every version of a
// module under development left its compiled code.)
func TestPruneCache(t *testing.T) {
	old := wazeroVersion
	wazeroVersion = func() string { return "v1.12.0" }
	defer func() { wazeroVersion = old }()
	dir := t.TempDir()
	put := func(rel string, size int, age time.Duration) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := []string{
		put("aios-instrumented-v1/a.wasm", 10, 0),
		put("wazero-v0.0.1-amd64-linux/x", 10, 0),
		put("wasmtime-v39-abc.cwasm", 10, 0),
	}
	oldest := put(instrumentedDir+"/old.wasm", 600, 3*time.Hour)
	older := put(instrumentedDir+"/older.wasm", 600, 2*time.Hour)
	newest := put(instrumentedDir+"/new.wasm", 600, time.Hour)
	sealed := put("wasmtime-v39-sealed-abc.cwasm", 50, 0)
	current := put("wazero-v1.12.0-amd64-linux/y", 50, 0)
	pruneCache(dir, 1000, nil)
	for _, p := range append(stale, oldest, older) {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was kept", p)
		}
	}
	for _, p := range []string{newest, sealed, current} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// TestStartFunctionSleepBounded: a start function that sleeps (with a
// real clock) is woken at the load timeout; the load waited for the
// whole sleep.
func TestStartFunctionSleepBounded(t *testing.T) {
	src := strings.Replace(sleepWAT(), `(func (export "aios_register")`, `(func $start
    (i64.store (i32.const 256) (i64.const 7))
    (i32.store8 (i32.const 264) (i32.const 0))
    (i32.store (i32.const 272) (i32.const 1))
    (i64.store (i32.const 280) (i64.const 20000000000))
    (i64.store (i32.const 288) (i64.const 0))
    (i32.store16 (i32.const 296) (i32.const 0))
    (drop (call $poll (i32.const 256) (i32.const 320) (i32.const 1) (i32.const 384))))
  (start $start)
  (func (export "aios_register")`, 1)
	// A cache of its own: the first load of a process checks every entry
	// of the cache (docs/abi.md §6), and the one the tests share had
	// grown to 500 MB, which took 7-12 s to read on a loaded machine.
	l := newTestLoader(t, Config{Clock: "real", LoadTimeout: 300 * time.Millisecond, CacheDir: t.TempDir()}, nil)
	start := time.Now()
	p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, src)})
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the load took %v: a 20 s sleep in the start function was not cut at the 300ms load timeout", took)
	}
	if err == nil {
		p.Close()
	}
}

// manyTablesWAT is a guest with n tables of one element, each grown by
// 2^20 elements.
func manyTablesWAT(n int, extra string) string { return tablesWAT(n, 1, 1048576, extra) }

// TestTablesBoundedInAll: the bound is on the module's tables together
// (100 tables of a million elements each took 800 MB), also when the
// module runs without the rest of the rewrite (the loader's rewrite
// switched off, as for a module it cannot read; a module exporting
// aios_tick, which used to fall back so, is refused now:
// TestGuestExportingTickRefused) and when its instrumented cache
// entry is damaged.
func TestTablesBoundedInAll(t *testing.T) {
	dir := t.TempDir()
	l := newTestLoader(t, Config{CacheDir: dir}, nil)
	for name, src := range map[string]string{
		"100 tables":     manyTablesWAT(100, ""),
		"not rewritable": manyTablesWAT(1, ""),
		"two big tables": manyTablesWAT(2, ""),
	} {
		t.Run(name, func(t *testing.T) {
			ll := l
			if name == "not rewritable" {
				ll = newTestLoader(t, Config{CacheDir: dir}, nil)
				ll.noInstrument = true
			}
			p := load(t, ll, buildWAT(t, src))
			if p.instrumented == ll.noInstrument {
				t.Fatalf("instrumented = %v", p.instrumented)
			}
			v, err := call(p, newFakeEnv(p, 2), "grow", map[string]any{}, 30*time.Second)
			if err != nil || v.(map[string]any)["refused"] != true {
				t.Fatalf("grow = %v, %v; want a table.grow refused", v, err)
			}
		})
	}
	t.Run("damaged instrumented cache entry", func(t *testing.T) {
		path := buildWAT(t, tableWAT(1))
		p := load(t, l, path)
		p.Close()
		entries, _ := filepath.Glob(filepath.Join(dir, instrumentedDir, "*.wasm"))
		if len(entries) == 0 {
			t.Fatal("no instrumented cache entries")
		}
		for _, e := range entries {
			if err := os.WriteFile(e, []byte("\x00asm\x01\x00\x00\x00"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		l2 := newTestLoader(t, Config{CacheDir: dir}, nil)
		p2 := load(t, l2, path)
		if !p2.instrumented {
			t.Error("a damaged cache entry made the module run unrewritten")
		}
		v, err := call(p2, newFakeEnv(p2, 2), "grow", map[string]any{}, 30*time.Second)
		if err != nil || v.(map[string]any)["refused"] != true {
			t.Fatalf("grow = %v, %v; want table.grow refused", v, err)
		}
	})
}
