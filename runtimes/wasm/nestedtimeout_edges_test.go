package wasm

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestNestedTimeoutNamesPendingCall: a guest whose deadline passed while
// it waited in call_tool ended with "nested ran past its deadline; the
// guest was interrupted", as if it had been busy itself, not saying which
// nested call (which hop of a chain) it waited for. Now the message names
// it: call_tool("slow-inner").
func TestNestedTimeoutNamesPendingCall(t *testing.T) {
	l := newTestLoader(t, Config{PoolSize: 2}, nil)
	p := load(t, l, builtGuest(t, "conformance"))
	env := newFakeEnv(p, 4)
	env.tools = map[string]func(any) (any, error){
		"slow-inner": func(any) (any, error) {
			time.Sleep(2500 * time.Millisecond) // past the caller's deadline
			return map[string]any{}, nil
		},
	}
	_, err := call(p, env, "nested", map[string]any{"tool": "slow-inner", "params": map[string]any{}}, time.Second)
	if abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("want Timeout, got %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `call_tool("slow-inner")`) || !strings.Contains(msg, "nested") {
		t.Errorf("%q does not name the nested call the guest waited for", msg)
	}
	// The next call of the instance is not blamed on it.
	_, err = call(p, env, "sleep", map[string]any{"ms": 60000}, time.Second)
	if abi.CodeOf(err) != abi.Timeout || strings.Contains(err.Error(), "slow-inner") {
		t.Errorf("sleep: %v", err)
	}
}
