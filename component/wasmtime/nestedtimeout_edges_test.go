//go:build wasmtime

package wasmtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestNestedTimeoutNamesPendingCall: a component on wasmtime whose
// deadline passed (or whose caller cancelled) while it waited in
// tools.call-tool ended with "deadline passed; the component instance was
// stopped", as if busy itself: the message names the nested call it waited
// for now, as the wazero engine's does, and the next call is not blamed.
func TestNestedTimeoutNamesPendingCall(t *testing.T) {
	p := loadWT(t, newLoader(t, Options{}), "conformance")
	env := &fakeEnv{call: func(string, any) (any, error) {
		time.Sleep(2500 * time.Millisecond) // past the caller's deadline
		return map[string]any{}, nil
	}}
	params := map[string]any{"tool": "slow-inner", "params": map[string]any{}}
	_, err := callP(p, env, "nested", params, time.Second)
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), `while it awaited tools.call-tool("slow-inner")`) {
		t.Fatalf("want a Timeout naming the nested call, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	_, err = p.Call(ctx, &abi.ToolCall{ID: "c", Tool: "nested", Params: params, Deadline: time.Now().Add(time.Minute)}, env)
	if abi.CodeOf(err) != abi.Cancelled || !strings.Contains(err.Error(), `while it awaited tools.call-tool("slow-inner")`) {
		t.Fatalf("want a Cancelled naming the nested call, got %v", err)
	}
	_, err = callP(p, &fakeEnv{}, "sleep", map[string]any{"ms": int64(60000)}, time.Second)
	if abi.CodeOf(err) != abi.Timeout || strings.Contains(err.Error(), "slow-inner") {
		t.Errorf("sleep: %v", err)
	}
}
