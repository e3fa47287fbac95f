package wasm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestFreeTrapNamesExport: when the host grew its ToolCall buffer and the
// guest's aios_free trapped on the old one, the caller got "t: the guest
// trapped: wasm error: unreachable", as if aios_call had, where a trap in
// aios_alloc says "aios_alloc(1024): …". It names aios_free and the buffer
// it was given, on both engines; the instance is discarded and the next
// call gets a fresh one.
func TestFreeTrapNamesExport(t *testing.T) {
	g := newEdgeGuest(edgeReg)
	g.call = fmt.Sprintf("(i64.const %d)", g.seg(`{"value":1}`))
	g.extra = `(func (export "aios_free") (param i32 i32) unreachable)`
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
			env := newFakeEnv(p, 3)
			if v, err := call(p, env, "t", map[string]any{}, 5*time.Second); err != nil || v != int64(1) {
				t.Fatalf("first call: %v, %v", v, err)
			}
			// Params larger than the first buffer (1024 bytes): the host
			// frees it and asks for a bigger one.
			_, err := call(p, env, "t", map[string]any{"s": strings.Repeat("x", 5000)}, 5*time.Second)
			te, ok := err.(*abi.ToolError)
			if !ok || te.Code != abi.ProviderCrashed || !strings.Contains(te.Message, "aios_free(") || !strings.Contains(te.Message, "unreachable") {
				t.Fatalf("call whose buffer grew: %v; want ProviderCrashed naming aios_free", err)
			}
			if v, err := call(p, env, "t", map[string]any{}, 5*time.Second); err != nil || v != int64(1) {
				t.Fatalf("call after the trap: %v, %v", v, err)
			}
		})
	}
}

// TestFreeCallingImportRefused: the host calls the guest's aios_free on
// its call buffer when it grows it, before aios_call, with the call's
// grants in place: an aios_free calling call_tool was served, a tool
// called before the call itself ran, and the answer's aios_alloc ran
// inside aios_free (found by p181). It traps, as in aios_alloc, on both
// engines: ProviderCrashed naming aios_free, the instance discarded.
func TestFreeCallingImportRefused(t *testing.T) {
	g := newEdgeGuest(edgeReg)
	g.call = fmt.Sprintf("(i64.const %d)", g.seg(`{"value":1}`))
	ptr, n := pk(g.seg(`{"tool":"other"}`))
	g.extra = fmt.Sprintf(`(func (export "aios_free") (param i32 i32) (drop (call $call_tool %s %s)))`, ptr, n)
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
			env := newFakeEnv(p, 3)
			called := 0
			env.tools = map[string]func(any) (any, error){"other": func(any) (any, error) { called++; return 1, nil }}
			if v, err := call(p, env, "t", map[string]any{}, 5*time.Second); err != nil || v != int64(1) {
				t.Fatalf("first call: %v, %v", v, err)
			}
			_, err := call(p, env, "t", map[string]any{"s": strings.Repeat("x", 5000)}, 5*time.Second)
			te, ok := err.(*abi.ToolError)
			if !ok || te.Code != abi.ProviderCrashed || !strings.Contains(te.Message, "aios_free") || !strings.Contains(te.Message, "may not make host calls") {
				t.Fatalf("call whose buffer grew, aios_free calling call_tool: %v; want ProviderCrashed naming aios_free", err)
			}
			if called != 0 {
				t.Errorf("the tool aios_free called ran %d times", called)
			}
			if v, err := call(p, env, "t", map[string]any{}, 5*time.Second); err != nil || v != int64(1) {
				t.Fatalf("call after the refusal: %v, %v", v, err)
			}
		})
	}
}
