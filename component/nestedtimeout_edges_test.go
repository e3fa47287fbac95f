package component

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestNestedTimeoutNamesPendingCall: a component whose deadline passed
// while it waited in tools.call-tool ended with "tool nested: deadline
// passed; the component instance was stopped", as if busy itself, where
// the core-module, JS and Python runtimes name the nested call it waited
// for: which hop of a chain ran out of time. The component's message
// names it too, tools.call-tool("slow-inner"), and the next call of the
// provider is not blamed on it.
func TestNestedTimeoutNamesPendingCall(t *testing.T) {
	p, err := New(context.Background(), sample(t, "conformance"), "conformance.wasm", "", Options{CacheDir: testCacheDir(), RealClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	env := &fakeEnv{tools: func(tool string, _ any) (any, error) {
		time.Sleep(2500 * time.Millisecond) // past the caller's deadline
		return map[string]any{}, nil
	}}
	_, err = p.Call(context.Background(), &abi.ToolCall{ID: "n", Tool: "nested", Params: map[string]any{"tool": "slow-inner", "params": map[string]any{}}, Deadline: time.Now().Add(time.Second)}, env)
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), `while it awaited tools.call-tool("slow-inner")`) {
		t.Fatalf("want a Timeout naming the nested call, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	_, err = p.Call(ctx, &abi.ToolCall{ID: "c", Tool: "nested", Params: map[string]any{"tool": "slow-inner", "params": map[string]any{}}, Deadline: time.Now().Add(time.Minute)}, env)
	if abi.CodeOf(err) != abi.Cancelled || !strings.Contains(err.Error(), `while it awaited tools.call-tool("slow-inner")`) {
		t.Fatalf("want a Cancelled naming the nested call, got %v", err)
	}
	_, err = p.Call(context.Background(), &abi.ToolCall{ID: "s", Tool: "sleep", Params: map[string]any{"ms": int64(60000)}, Deadline: time.Now().Add(time.Second)}, &fakeEnv{})
	if abi.CodeOf(err) != abi.Timeout || strings.Contains(err.Error(), "slow-inner") {
		t.Errorf("sleep: %v", err)
	}
}
