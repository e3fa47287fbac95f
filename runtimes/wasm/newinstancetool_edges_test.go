package wasm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestNewInstanceFailureNamesTool: a call that needs a new instance (the
// last one was discarded after a trap) and finds that the module's
// _initialize now traps failed with "/path/x.wasm: _initialize: wasm
// error: unreachable", naming the file but not the tool called, where
// every other failure of a call names it ("t: the guest trapped: …"). It
// names the tool, on both engines, and keeps the reason.
func TestNewInstanceFailureNamesTool(t *testing.T) {
	g := newEdgeGuest(`{"format":1,"provider":{"id":"org.probe.newinst"},"tools":[{"name":"probe-tool"}]}`)
	g.call = "unreachable"
	// _initialize traps on every instance but the first: the guest's
	// monotonic clock (virtual, the provider's) reads 1 only once.
	g.extra = `(import "wasi_snapshot_preview1" "clock_time_get" (func $ct (param i32 i64 i32) (result i32)))`
	wat := strings.Replace(g.wat(), `(memory (export "memory") 2)`, g.extra+"\n  (memory (export \"memory\") 2)", 1)
	wat = strings.Replace(wat, g.extra+"\n)", fmt.Sprintf(`(func (export "_initialize")
    (drop (call $ct (i32.const 1) (i64.const 0) (i32.const 0)))
    (if (i64.gt_u (i64.load (i32.const 0)) (i64.const 1)) (then unreachable)))
)`), 1)
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{PoolSize: 1}, wat)
			env := newFakeEnv(p, 3)
			if _, err := call(p, env, "probe-tool", map[string]any{}, 10*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
				t.Fatalf("first call: %v; want ProviderCrashed", err)
			}
			_, err := call(p, env, "probe-tool", map[string]any{}, 10*time.Second)
			te, ok := err.(*abi.ToolError)
			if !ok || !strings.Contains(te.Message, "probe-tool") || !strings.Contains(te.Message, "_initialize") || !strings.Contains(te.Message, "unreachable") {
				t.Fatalf("call whose new instance's _initialize trapped: %v; want a ToolError naming the tool and _initialize", err)
			}
		})
	}
}
