//go:build wasmtime && unix

package wasm

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestWasmtimeNestedTimeoutNamesPendingCall: the wasmtime engine's guest,
// past its deadline while it waited in call_tool, ended with "nested ran
// past its deadline; the guest was interrupted", where wazero's names the
// nested call it waited for (TestNestedTimeoutNamesPendingCall). Both
// engines say call_tool("slow-inner") now.
func TestWasmtimeNestedTimeoutNamesPendingCall(t *testing.T) {
	l := newWasmtimeTestLoader(t, Config{PoolSize: 2})
	p, err := l.Load(context.Background(), abi.Source{Path: builtGuest(t, "conformance")})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	env := newFakeEnv(p, 4)
	env.tools = map[string]func(any) (any, error){
		"slow-inner": func(any) (any, error) {
			time.Sleep(2500 * time.Millisecond) // past the caller's deadline
			return map[string]any{}, nil
		},
	}
	_, err = call(p, env, "nested", map[string]any{"tool": "slow-inner", "params": map[string]any{}}, time.Second)
	if abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("want Timeout, got %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `while it awaited call_tool("slow-inner")`) {
		t.Errorf("%q does not name the nested call the guest waited for", msg)
	}
	// The next call of the instance is not blamed on it.
	_, err = call(p, env, "sleep", map[string]any{"ms": 60000}, time.Second)
	if abi.CodeOf(err) != abi.Timeout || strings.Contains(err.Error(), "slow-inner") {
		t.Errorf("sleep: %v", err)
	}
}
