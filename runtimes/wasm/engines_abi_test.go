package wasm

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// edgeEngine loads core modules on one engine (wazero always; wasmtime
// with the build tag, engines_abi_wasmtime_test.go).
type edgeEngine struct {
	name string
	load func(t *testing.T, cfg Config, src abi.Source) (abi.Provider, error)
}

var edgeEngines = []edgeEngine{{"wazero", func(t *testing.T, cfg Config, src abi.Source) (abi.Provider, error) {
	return newTestLoader(t, cfg, nil).Load(context.Background(), src)
}}}

// edgeInstances reports a provider's open instances on either engine.
var edgeInstances = func(p abi.Provider) int { return p.(*Provider).Instances() }

func edgeWarm(t *testing.T, p abi.Provider, n int) {
	t.Helper()
	w, ok := p.(interface {
		Warm(context.Context, int) error
	})
	if !ok {
		t.Fatalf("%T has no Warm", p)
	}
	if err := w.Warm(context.Background(), n); err != nil {
		t.Fatal(err)
	}
}

// edgeGuestWAT is a guest following docs/abi.md to the letter: a JSON
// ToolRegister with one tool "t", a bump allocator (allocBody may add to
// it), and aios_call running callBody (locals $p $n $a; returns i64).
type edgeGuest struct {
	data  strings.Builder
	next  int
	reg   uint64
	alloc string // WAT run at the top of aios_alloc (param $n)
	call  string
	extra string
}

func newEdgeGuest(reg string) *edgeGuest {
	g := &edgeGuest{next: 1024}
	g.reg = g.seg(reg)
	return g
}

const edgeReg = `{"format":1,"provider":{"id":"org.probe.abi","capabilities":["CallTool(*)","ReadSpace(*)","WriteSpace(*)","Inference"]},"tools":[{"name":"t"}]}`

// seg adds a data segment and returns its packed buffer.
func (g *edgeGuest) seg(s string) uint64 {
	d, packed := watData(g.next, s)
	g.data.WriteString(d)
	g.next += (len(s) + 15) &^ 7
	return packed
}

// lo and hi split a packed buffer into WAT i32 constants.
func pk(packed uint64) (ptr, n string) {
	return fmt.Sprintf("(i32.const %d)", uint32(packed>>32)), fmt.Sprintf("(i32.const %d)", uint32(packed))
}

func (g *edgeGuest) wat() string {
	return fmt.Sprintf(`(module
  (import "aios" "call_tool" (func $call_tool (param i32 i32) (result i64)))
  (import "aios" "space_read" (func $space_read (param i32 i32) (result i64)))
  (import "aios" "space_write" (func $space_write (param i32 i32) (result i64)))
  (import "aios" "ai_complete" (func $ai_complete (param i32 i32) (result i64)))
  (import "aios" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  (global $saved (mut i64) (i64.const 0))
  %s
  (func $alloc (export "aios_alloc") (param $n i32) (result i32)
    (local $p i32) (local $end i32)
    %s
    (local.set $p (global.get $heap))
    (local.set $end (i32.and (i32.add (i32.add (local.get $p) (local.get $n)) (i32.const 7)) (i32.const -8)))
    (if (i32.gt_u (local.get $end) (i32.mul (memory.size) (i32.const 65536)))
      (then (if (i32.eq (memory.grow (i32.add (i32.shr_u (local.get $n) (i32.const 16)) (i32.const 1))) (i32.const -1))
        (then (return (i32.const 0))))))
    (global.set $heap (local.get $end))
    (local.get $p))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param $p i32) (param $n i32) (result i64)
    (local $a i64)
    %s)
  %s
)`, g.data.String(), g.alloc, g.reg, g.call, g.extra)
}

// checkCodec returns the answer in $a when its first byte is first, else
// the ToolResult wrong (a guest-visible codec check).
func (g *edgeGuest) checkCodec(first byte) string {
	wrongPtr, wrongN := pk(g.seg(`{"error":{"code":"Internal","message":"probe: the answer is not in the request's codec"}}`))
	return fmt.Sprintf(`(if (i32.ne (i32.load8_u (i32.wrap_i64 (i64.shr_u (local.get $a) (i64.const 32)))) (i32.const %d))
      (then (return (i64.or (i64.shl (i64.extend_i32_u %s) (i64.const 32)) (i64.extend_i32_u %s)))))
    (local.get $a)`, first, wrongPtr, wrongN)
}

func edgeLoad(t *testing.T, e edgeEngine, cfg Config, wat string) abi.Provider {
	t.Helper()
	p, err := e.load(t, cfg, abi.Source{Path: buildWAT(t, wat)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// Idle instances are trimmed to min_idle after idle_timeout (docs/abi.md §6,
// "Instances") on both engines: wasmtime kept every instance it had ever
// made until the provider closed.
func TestEngineIdleTrim(t *testing.T) {
	g := newEdgeGuest(edgeReg)
	ok := g.seg(`{"value":1}`)
	g.call = fmt.Sprintf("(i64.const %d)", ok)
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{PoolSize: 3, MinIdle: 1, IdleTimeout: 100 * time.Millisecond}, g.wat())
			edgeWarm(t, p, 3)
			if n := edgeInstances(p); n != 3 {
				t.Fatalf("%d instances after Warm(3)", n)
			}
			deadline := time.Now().Add(3 * time.Second)
			for edgeInstances(p) > 1 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := edgeInstances(p); n != 1 {
				t.Fatalf("%d instances 3s after idle_timeout 100ms, want min_idle 1", n)
			}
			if v, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 5*time.Second); err != nil || v != int64(1) {
				t.Fatalf("call after trim: %v %v", v, err)
			}
		})
	}
}

type edgeOutcome struct {
	v    any
	code abi.ErrorCode
	msg  string
	inst int
}

// edgeRun loads g with pool_size 1 and makes one call of "t".
func edgeRun(t *testing.T, e edgeEngine, g *edgeGuest, env func(p abi.Provider) *fakeEnv) edgeOutcome {
	t.Helper()
	p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
	fe := newFakeEnv(p, 3)
	if env != nil {
		fe = env(p)
	}
	v, err := call(p, fe, "t", map[string]any{}, 5*time.Second)
	v, _ = abi.Normalize(v)
	o := edgeOutcome{v: v, code: abi.CodeOf(err), inst: edgeInstances(p)}
	if err != nil {
		o.msg = err.Error()
	}
	return o
}

// A ToolResult error's code is one of abi's (docs/abi.md §2): another code
// reached the caller as is on both engines, outside the closed set callers
// switch on; the JS and MCP runtimes make it ProviderError. And a
// MessagePack error whose message is not a string was taken (message
// dropped) where the same JSON error is a protocol error.
func TestEngineResultErrorShapes(t *testing.T) {
	for _, tc := range []struct {
		name, res string
		code      abi.ErrorCode
		msg       string
		inst      int
	}{
		{"json unknown code", `{"error":{"code":"Bogus","message":"m","data":1}}`, abi.ProviderError, `m (the guest's error code "Bogus"`, 1},
		{"msgpack unknown code", "\x81\xa5error\x82\xa4code\xa5Bogus\xa7message\xa1m", abi.ProviderError, `m (the guest's error code "Bogus"`, 1},
		{"json known code", `{"error":{"code":"NotFound","message":"m"}}`, abi.NotFound, "m", 1},
		{"json message not a string", `{"error":{"code":"NotFound","message":5}}`, abi.ProviderError, "malformed", 0},
		{"msgpack message not a string", "\x81\xa5error\x82\xa4code\xa8NotFound\xa7message\x05", abi.ProviderError, "malformed", 0},
		{"msgpack message null", "\x81\xa5error\x82\xa4code\xa8NotFound\xa7message\xc0", abi.NotFound, "", 1},
	} {
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				g.call = fmt.Sprintf("(i64.const %d)", g.seg(tc.res))
				o := edgeRun(t, e, g, nil)
				if o.code != tc.code || !strings.Contains(o.msg, tc.msg) || o.inst != tc.inst {
					t.Fatalf("got %s %q, %d instances; want %s containing %q, %d instances", o.code, o.msg, o.inst, tc.code, tc.msg, tc.inst)
				}
			})
		}
	}
}

// ai_complete's optional fields have types (docs/abi.md §4: "max_tokens"?:
// int, "temperature"?: number); one of another type was dropped without a
// word while call_tool's "version" of the wrong type is InvalidRequest.
func TestEngineCompleteFieldTypes(t *testing.T) {
	for _, tc := range []struct {
		req  string
		code abi.ErrorCode
	}{
		{`{"prompt":"hi","max_tokens":10,"temperature":0.5,"system":"s","model":"m"}`, ""},
		{`{"prompt":"hi","max_tokens":10.0,"temperature":1}`, ""},
		{`{"prompt":"hi","max_tokens":null,"system":null}`, ""},
		{`{"prompt":"hi","max_tokens":"ten"}`, abi.InvalidRequest},
		{`{"prompt":"hi","max_tokens":10.5}`, abi.InvalidRequest},
		// An integer out of range is InvalidParams, as from every runtime
		// (docs/pipeline.md); it was InvalidRequest here alone.
		{`{"prompt":"hi","max_tokens":-1}`, abi.InvalidParams},
		{`{"prompt":"hi","max_tokens":2147483648}`, abi.InvalidParams},
		{`{"prompt":"hi","temperature":"hot"}`, abi.InvalidRequest},
		{`{"prompt":"hi","system":5}`, abi.InvalidRequest},
		{`{"prompt":"hi","model":[]}`, abi.InvalidRequest},
	} {
		for _, e := range edgeEngines {
			t.Run(e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				ptr, n := pk(g.seg(tc.req))
				g.call = fmt.Sprintf("(call $ai_complete %s %s)", ptr, n)
				o := edgeRun(t, e, g, nil)
				if o.code != tc.code || o.inst != 1 {
					t.Fatalf("%s: got %s %q %v, %d instances; want %q", tc.req, o.code, o.msg, o.v, o.inst, tc.code)
				}
			})
		}
	}
}

// The host's answer to an import it cannot deliver: docs/abi.md §3 quotes
// "aios_alloc returned 0 (the guest is out of memory)"; wasmtime said only
// "aios_alloc returned 0", and for a trapping allocator the first line of
// its backtrace ("error while executing at wasm backtrace:").
func TestEngineAnswerUndeliverable(t *testing.T) {
	small := func(body string) string {
		return `(if (i32.lt_u (local.get $n) (i32.const 1024)) (then ` + body + `))`
	}
	for _, tc := range []struct{ name, alloc, msg string }{
		{"alloc returns 0", small(`(return (i32.const 0))`), "returned 0 (the guest is out of memory)"},
		{"alloc outside memory", small(`(return (i32.const 131070))`), "outside the guest's 131072-byte memory"},
		{"alloc traps", small(`unreachable`), "unreachable"},
		{"alloc calls an import", `(drop (call $call_tool (i32.const 0) (i32.const 0)))`, "called from inside aios_alloc"},
	} {
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				g.alloc = tc.alloc
				ptr, n := pk(g.seg(`{"tool":"other"}`))
				g.call = fmt.Sprintf("(call $call_tool %s %s)", ptr, n)
				o := edgeRun(t, e, g, func(p abi.Provider) *fakeEnv {
					env := newFakeEnv(p, 3)
					env.tools = map[string]func(any) (any, error){"other": func(any) (any, error) { return 1, nil }}
					return env
				})
				if o.code != abi.ProviderCrashed || !strings.Contains(o.msg, tc.msg) || strings.Contains(o.msg, "backtrace") || o.inst != 0 {
					t.Fatalf("got %s %q, %d instances; want ProviderCrashed with %q, discarded", o.code, o.msg, o.inst, tc.msg)
				}
			})
		}
	}
}

// Steps 1-3 of a load run under load_timeout and "the load fails, naming
// the step" (docs/abi.md §1). On wasmtime a looping aios_abi_version or
// aios_register failed with wasmtime's multi-line backtrace ending in
// "wasm trap: interrupt", and a trap the same way.
func TestEngineLoadStepErrors(t *testing.T) {
	for _, tc := range []struct{ name, extra, regBody, want string }{
		{"version loops", `(func (export "aios_abi_version") (result i32) (loop $l (br $l)) (i32.const 1))`, "", "aios_abi_version did not finish within runtimes.wasm.load_timeout"},
		{"version traps", `(func (export "aios_abi_version") (result i32) unreachable)`, "", "aios_abi_version failed: wasm error: unreachable"},
		{"register loops", "", `(loop $l (br $l)) (i64.const 0)`, "aios_register did not finish within runtimes.wasm.load_timeout"},
		{"register traps", "", `unreachable`, "aios_register trapped: wasm error: unreachable"},
	} {
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				g.extra = tc.extra
				g.call = `(i64.const 0)`
				src := g.wat()
				if tc.regBody != "" {
					src = strings.Replace(src, fmt.Sprintf("(result i64) (i64.const %d))", g.reg), "(result i64) "+tc.regBody+")", 1)
				}
				p, err := e.load(t, Config{LoadTimeout: 300 * time.Millisecond}, abi.Source{Path: buildWAT(t, src)})
				if err == nil {
					p.Close()
					t.Fatal("loaded")
				}
				if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "backtrace") {
					t.Fatalf("load error %q, want one naming %q without a backtrace", msg, tc.want)
				}
			})
		}
	}
}

// A caller that cancels stops its guest on both engines (docs/pipeline.md:
// runtimes interrupt their guests themselves): on wasmtime a looping guest
// ran on, holding its instance and a CPU, until the call's deadline.
func TestEngineCancelStopsGuest(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{PoolSize: 1}, basicWAT("org.test.cancel", 2))
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			c := &abi.ToolCall{ID: "c", Tool: "loop", Params: map[string]any{}, Deadline: time.Now().Add(5 * time.Second)}
			env := newFakeEnv(p, 3)
			env.call = c
			start := time.Now()
			_, err := p.Call(ctx, c, env)
			if took := time.Since(start); abi.CodeOf(err) != abi.Cancelled || took > 2*time.Second {
				t.Fatalf("cancelled after 100ms: %v after %v, want Cancelled at once", err, took)
			}
			if v, err := call(p, newFakeEnv(p, 3), "const", map[string]any{}, 5*time.Second); err != nil {
				t.Fatalf("next call: %v %v", v, err)
			}
		})
	}
}

// "A module may also import aios.tick () -> i32" (docs/abi.md §4): on
// wasmtime such a module passed the import check and then failed to
// instantiate (aios::tick was not defined).
func TestEngineTickImport(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			ok := g.seg(`{"value":1}`)
			g.call = fmt.Sprintf("(drop (call $tick)) (i64.const %d)", ok)
			src := strings.Replace(g.wat(), "(memory (export", `(import "aios" "tick" (func $tick (result i32)))
  (memory (export`, 1)
			p := edgeLoad(t, e, Config{}, src)
			if v, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 5*time.Second); err != nil || v != int64(1) {
				t.Fatalf("call: %v %v", v, err)
			}
		})
	}
}

type edgeLogRec struct {
	level slog.Level
	msg   string
}

type edgeLogs struct {
	mu   sync.Mutex
	recs []edgeLogRec
}

func (h *edgeLogs) Enabled(context.Context, slog.Level) bool { return true }
func (h *edgeLogs) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.recs = append(h.recs, edgeLogRec{r.Level, r.Message})
	h.mu.Unlock()
	return nil
}
func (h *edgeLogs) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *edgeLogs) WithGroup(string) slog.Handler      { return h }

// aios.log as docs/abi.md §4 states it, on both engines: levels 0-3 and
// others info, the message cut at 4 KiB, invalid UTF-8 replaced, a message
// outside memory logged as a warning; the guest goes on.
func TestEngineLogImport(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			hi, hn := pk(g.seg("hi"))
			bad, bn := pk(g.seg("a\xffb"))
			long, ln := pk(g.seg(strings.Repeat("x", 5000)))
			ok := g.seg(`{"value":1}`)
			g.call = fmt.Sprintf(`(call $log (i32.const 0) %[1]s %[2]s) (call $log (i32.const 1) %[1]s %[2]s)
    (call $log (i32.const 2) %[1]s %[2]s) (call $log (i32.const 3) %[1]s %[2]s) (call $log (i32.const 9) %[1]s %[2]s)
    (call $log (i32.const -1) %[3]s %[4]s) (call $log (i32.const 1) %[5]s %[6]s) (call $log (i32.const 1) (i32.const 131000) (i32.const 1000))
    (i64.const %[7]d)`, hi, hn, bad, bn, long, ln, ok)
			p := edgeLoad(t, e, Config{}, g.wat())
			h := &edgeLogs{}
			env := newFakeEnv(p, 3)
			env.logger = slog.New(h)
			if v, err := call(p, env, "t", map[string]any{}, 5*time.Second); err != nil || v != int64(1) {
				t.Fatalf("call: %v %v", v, err)
			}
			want := []edgeLogRec{{slog.LevelDebug, "hi"}, {slog.LevelInfo, "hi"}, {slog.LevelWarn, "hi"}, {slog.LevelError, "hi"}, {slog.LevelInfo, "hi"},
				{slog.LevelInfo, "a\uFFFDb"}, {slog.LevelInfo, strings.Repeat("x", 4096)}, {slog.LevelWarn, "(aios.log called with [131000, +1000) outside guest memory)"}}
			h.mu.Lock()
			defer h.mu.Unlock()
			if fmt.Sprint(h.recs) != fmt.Sprint(want) {
				t.Fatalf("log records\n%v\nwant\n%v", h.recs, want)
			}
		})
	}
}

// WASI with nothing granted (docs/abi.md §6) on both engines: no
// environment, no arguments, no preopened directory, empty stdin, no
// sockets.
func TestEngineWASISandbox(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			ok := g.seg(`{"value":"sandboxed"}`)
			fail := func(what string) string {
				return fmt.Sprintf("(return (i64.const %d))", g.seg(`{"error":{"code":"Internal","message":"`+what+`"}}`))
			}
			g.call = fmt.Sprintf(`
    (drop (call $environ_sizes_get (i32.const 256) (i32.const 260)))
    (if (i32.ne (i32.load (i32.const 256)) (i32.const 0)) (then %s))
    (drop (call $args_sizes_get (i32.const 256) (i32.const 260)))
    (if (i32.ne (i32.load (i32.const 256)) (i32.const 0)) (then %s))
    (if (i32.eqz (call $fd_prestat_get (i32.const 3) (i32.const 256))) (then %s))
    (i32.store (i32.const 300) (i32.const 512)) (i32.store (i32.const 304) (i32.const 64)) (i32.store (i32.const 308) (i32.const 99))
    (if (i32.eqz (call $fd_read (i32.const 0) (i32.const 300) (i32.const 1) (i32.const 308)))
      (then (if (i32.ne (i32.load (i32.const 308)) (i32.const 0)) (then %s))))
    (if (i32.eqz (call $sock_accept (i32.const 3) (i32.const 0) (i32.const 256))) (then %s))
    (if (i32.eqz (call $path_open (i32.const 3) (i32.const 0) (i32.const 600) (i32.const 4) (i32.const 0) (i64.const 2) (i64.const 2) (i32.const 0) (i32.const 256))) (then %s))
    (i64.const %d)`, fail("environment"), fail("arguments"), fail("a preopened directory"), fail("stdin not empty"), fail("socket"), fail("path_open"), ok)
			src := strings.Replace(g.wat(), "(memory (export", `(import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $fd_prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_accept" (func $sock_accept (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (memory (export`, 1)
			src = strings.Replace(src, "(global $heap", `(data (i32.const 600) "/etc")
  (global $heap`, 1)
			p := edgeLoad(t, e, Config{}, src)
			if v, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 5*time.Second); err != nil || v != "sandboxed" {
				t.Fatalf("call: %v %v", v, err)
			}
		})
	}
}

// A host call outside aios_call is answered Unavailable "in the codec of
// the request" (docs/abi.md §2, §3) from _initialize and from a start
// function alike: wazero answered a start function in MessagePack always.
func TestEngineHostCallBeforeCall(t *testing.T) {
	for _, where := range []string{"_initialize", "start"} {
		for _, e := range edgeEngines {
			t.Run(where+"/"+e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				ptr, n := pk(g.seg(`{"tool":"other"}`))
				g.call = "(local.set $a (global.get $saved))\n" + g.checkCodec('{')
				if where == "start" {
					g.extra = fmt.Sprintf(`(func $st (global.set $saved (call $call_tool %s %s))) (start $st)`, ptr, n)
				} else {
					g.extra = fmt.Sprintf(`(func (export "_initialize") (global.set $saved (call $call_tool %s %s)))`, ptr, n)
				}
				o := edgeRun(t, e, g, nil)
				if o.code != abi.Unavailable {
					t.Fatalf("got %s %q, want the Unavailable answer in JSON", o.code, o.msg)
				}
			})
		}
	}
}

// An answer above max_message_bytes is TooLarge "in the request's codec"
// (docs/abi.md §2) on both engines: it was MessagePack always.
func TestEngineTooLargeAnswerCodec(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			ptr, n := pk(g.seg(`{"tool":"other"}`))
			g.call = fmt.Sprintf("(local.set $a (call $call_tool %s %s))\n", ptr, n) + g.checkCodec('{')
			p := edgeLoad(t, e, Config{PoolSize: 1, MaxMessageBytes: 4096}, g.wat())
			env := newFakeEnv(p, 3)
			env.tools = map[string]func(any) (any, error){"other": func(any) (any, error) { return strings.Repeat("x", 5000), nil }}
			_, err := call(p, env, "t", map[string]any{}, 5*time.Second)
			if abi.CodeOf(err) != abi.TooLarge {
				t.Fatalf("got %v, want the TooLarge answer in JSON", err)
			}
		})
	}
}

// A request above max_message_bytes is answered TooLarge in its codec,
// which its first byte tells (docs/abi.md §2): it was MessagePack always.
func TestEngineTooLargeRequestCodec(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			ptr, n := pk(g.seg(`{"tool":"other","params":"` + strings.Repeat("x", 5000) + `"}`))
			g.call = fmt.Sprintf("(local.set $a (call $call_tool %s %s))\n", ptr, n) + g.checkCodec('{')
			p := edgeLoad(t, e, Config{PoolSize: 1, MaxMessageBytes: 4096}, g.wat())
			_, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 5*time.Second)
			if abi.CodeOf(err) != abi.TooLarge {
				t.Fatalf("got %v, want the TooLarge answer in JSON", err)
			}
		})
	}
}

// aios.log cuts a message at 4 KiB (docs/abi.md §4): on wasmtime the host
// first copied the whole message out of guest memory, so a guest logging
// its 32 MiB memory made the host allocate 32 MiB per call.
func TestEngineLogLongMessageNoCopy(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			ok := g.seg(`{"value":1}`)
			g.call = fmt.Sprintf(`(if (i32.lt_u (memory.size) (i32.const 512)) (then (drop (memory.grow (i32.const 512)))))
    (call $log (i32.const 1) (i32.const 0) (i32.const 33554432))
    (i64.const %d)`, ok)
			p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
			env := newFakeEnv(p, 3)
			// A minute: growing the memory by 32 MiB under -race ran past
			// 5 s on a loaded machine.
			if _, err := call(p, env, "t", map[string]any{}, time.Minute); err != nil { // warm
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := call(p, env, "t", map[string]any{}, time.Minute); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Fatalf("logging a 32 MiB message allocated %d MiB", alloc>>20)
			}
		})
	}
}
