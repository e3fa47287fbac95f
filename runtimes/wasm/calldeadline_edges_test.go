//go:build unix

package wasm

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestNewInstanceKeepsToolCallDeadline: a call's deadline is its
// ToolCall's Deadline when its context has none (an embedder calling the
// provider directly; the pool's wait and the guest's run keep it). On
// wazero a call that needed a new instance whose _initialize or start
// function loops ran it to runtimes.wasm.load_timeout instead and failed
// Unavailable, where the wasmtime engine stopped it at the call's
// deadline, Timeout.
func TestNewInstanceKeepsToolCallDeadline(t *testing.T) {
	const loadTimeout = 3 * time.Second
	for _, tc := range []struct{ name, wat string }{
		{"_initialize", slowInitWAT()},
		{"start function", slowStartWAT()},
	} {
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				p := edgeLoad(t, e, Config{LoadTimeout: loadTimeout}, tc.wat)
				if _, err := call(p, newFakeEnv(p, 2), "t", map[string]any{}, 5*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
					t.Fatalf("first call: %v, want ProviderCrashed (the guest traps)", err)
				}
				c := &abi.ToolCall{ID: "c2", Tool: "t", Params: map[string]any{}, Deadline: time.Now().Add(200 * time.Millisecond)}
				env := *newFakeEnv(p, 2)
				env.call = c
				start := time.Now()
				_, err := p.Call(context.Background(), c, &env)
				took := time.Since(start)
				if abi.CodeOf(err) != abi.Timeout {
					t.Errorf("call needing a new instance whose %s loops: %v (after %v), want Timeout", tc.name, err, took)
				}
				if took >= loadTimeout {
					t.Errorf("the call took %v: the new instance's %s ran to load_timeout (%v)", took, tc.name, loadTimeout)
				}
			})
		}
	}
}
