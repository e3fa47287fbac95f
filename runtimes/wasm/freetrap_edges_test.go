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
