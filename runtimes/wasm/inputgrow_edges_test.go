package wasm

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestInputBufferGrowsWithinMemoryLimit: when a call outgrows the guest
// buffer the host keeps for its ToolCalls, the host asks aios_alloc for
// twice the old buffer (so that slowly growing calls do not allocate each
// time). A guest near its memory limit could hold the call itself but not
// twice the last one: its aios_alloc returned 0 and the call failed
// ProviderCrashed "the guest is out of memory", a call that fits refused.
// The host then asks for the call's own size, on both engines.
func TestInputBufferGrowsWithinMemoryLimit(t *testing.T) {
	g := newEdgeGuest(edgeReg)
	g.call = fmt.Sprintf("(i64.const %d)", g.seg(`{"value":1}`))
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			// 3 pages of 64 KiB: the bump allocator's heap starts at 64 KiB.
			p := edgeLoad(t, e, Config{PoolSize: 1, MemoryLimitPages: 3}, g.wat())
			env := newFakeEnv(p, 3)
			if v, err := call(p, env, "t", map[string]any{"s": strings.Repeat("x", 50000)}, 10*time.Second); err != nil || v != int64(1) {
				t.Fatalf("a 50 kB call: %v, %v", v, err)
			}
			// 60 kB fits in what is left (about 75 kB), 100 kB does not.
			if v, err := call(p, env, "t", map[string]any{"s": strings.Repeat("x", 60000)}, 10*time.Second); err != nil || v != int64(1) {
				t.Fatalf("a 60 kB call after a 50 kB one, with room for 60 kB: %v, %v", v, err)
			}
		})
	}
}
