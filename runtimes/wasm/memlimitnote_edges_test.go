package wasm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCrashAtMemoryLimitSaysSo: a guest whose memory.grow failed at
// runtimes.wasm.memory_limit_pages and that then trapped, or whose
// allocator then returned 0 for a host call's answer, was told only "the
// guest trapped: wasm error: unreachable" or "aios_alloc(11) returned 0
// (the guest is out of memory)", nothing saying that the host's limit was
// what it had reached or which key raises it. When the instance's memory
// is past three quarters of its limit, the crash says how many of its
// pages it had and names the keys, on both engines.
func TestCrashAtMemoryLimitSaysSo(t *testing.T) {
	const fill = "(loop $g (br_if $g (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))"
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			ptr, n := pk(g.seg(`{"tool":"other","params":{}}`))
			// The memory filled, the answer of a host call cannot be
			// delivered: the guest's aios_alloc (its heap moved to the
			// end of its memory) returns 0.
			g.call = fmt.Sprintf("%s (global.set $heap (i32.mul (memory.size) (i32.const 65536))) (call $call_tool %s %s)", fill, ptr, n)
			p := edgeLoad(t, e, Config{PoolSize: 1, MemoryLimitPages: 16}, g.wat())
			env := newFakeEnv(p, 3)
			env.tools = map[string]func(any) (any, error){"other": func(any) (any, error) { return 1, nil }}
			_, err := call(p, env, "t", map[string]any{}, 5*time.Second)
			te, isTE := err.(*abi.ToolError)
			if !isTE || te.Code != abi.ProviderCrashed {
				t.Fatalf("call at the memory limit: %v; want ProviderCrashed", err)
			}
			for _, want := range []string{"aios_alloc(", "returned 0", "16 of its limit of 16 pages", "runtimes.wasm.memory_limit_pages"} {
				if !strings.Contains(te.Message, want) {
					t.Errorf("allocator's 0 at the limit: %q; want it to say %q", te.Message, want)
				}
			}
		})
	}
	for _, e := range edgeEngines {
		t.Run(e.name+"/trap", func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			g.call = fill + " unreachable"
			p := edgeLoad(t, e, Config{PoolSize: 1, MemoryLimitPages: 16}, g.wat())
			_, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 5*time.Second)
			te, isTE := err.(*abi.ToolError)
			if !isTE || te.Code != abi.ProviderCrashed {
				t.Fatalf("trap at the memory limit: %v; want ProviderCrashed", err)
			}
			for _, want := range []string{"unreachable", "16 of its limit of 16 pages", "runtimes.wasm.memory_limit_pages"} {
				if !strings.Contains(te.Message, want) {
					t.Errorf("trap at the limit: %q; want it to say %q", te.Message, want)
				}
			}
			// A trap far below the limit says nothing of it.
			g = newEdgeGuest(edgeReg)
			g.call = "unreachable"
			p = edgeLoad(t, e, Config{PoolSize: 1, MemoryLimitPages: 16}, g.wat())
			_, err = call(p, newFakeEnv(p, 3), "t", map[string]any{}, 5*time.Second)
			if err == nil || strings.Contains(err.Error(), "memory_limit_pages") {
				t.Errorf("trap below the limit: %v; want no word of the limit", err)
			}
		})
	}
}
