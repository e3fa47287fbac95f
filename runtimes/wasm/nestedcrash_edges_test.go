package wasm

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestNestedCrashKeepsCallerInstance: a guest passing on the
// ProviderCrashed of a tool it called (another provider's panic, a trap
// in another module) had its own instance discarded, as if it had
// crashed: a callee's crash took down its caller's healthy instance (and
// its warm state), every time. An error the guest returns as it got it
// from call_tool during the call is the callee's; the instance is kept.
// A guest reporting a crash of its own is still discarded. Both engines.
func TestNestedCrashKeepsCallerInstance(t *testing.T) {
	for _, eng := range edgeEngines {
		t.Run(eng.name, func(t *testing.T) {
			p, err := eng.load(t, Config{PoolSize: 1}, abi.Source{Path: builtGuest(t, "conformance")})
			if err != nil {
				t.Fatal(err)
			}
			env := newFakeEnv(p, 4)
			env.tools = map[string]func(any) (any, error){
				"other-crash": func(any) (any, error) {
					return nil, &abi.ToolError{Code: abi.ProviderCrashed, Message: "tool other-crash of provider org.other panicked: boom"}
				},
			}
			if _, err := call(p, env, "echo", map[string]any{"value": 1}, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			if n := edgeInstances(p); n != 1 {
				t.Fatalf("%d instances after a call, want 1", n)
			}
			_, err = call(p, env, "nested", map[string]any{"tool": "other-crash", "params": map[string]any{}}, 5*time.Second)
			if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "org.other panicked") {
				t.Fatalf("nested → other-crash: %v, want the callee's ProviderCrashed", err)
			}
			if n := edgeInstances(p); n != 1 {
				t.Errorf("%d instances after the callee crashed, want 1: the caller's instance was discarded", n)
			}
			if _, err := call(p, env, "crash", map[string]any{}, 5*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
				t.Fatalf("crash: %v", err)
			}
			if n := edgeInstances(p); n != 0 {
				t.Errorf("%d instances after the guest's own crash, want 0", n)
			}
		})
	}
}
