package component

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestHostCallWithNilEnvUnavailable: a component's host call during a
// call made with a nil abi.Env (an embedder calling the provider
// directly) was answered "no host environment", and the guest passing it
// on failed with ProviderError, where a core module, JS and Python say
// Unavailable that the call was made with a nil abi.Env. The component's
// error is Unavailable too, saying so.
func TestHostCallWithNilEnvUnavailable(t *testing.T) {
	p, err := New(context.Background(), sample(t, "conformance"), "conformance.wasm", "", Options{CacheDir: testCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Call(context.Background(), &abi.ToolCall{ID: "n", Tool: "nested", Params: map[string]any{"tool": "echo", "params": map[string]any{}}, Deadline: time.Now().Add(30 * time.Second)}, nil)
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "nil abi.Env") {
		t.Fatalf("nested call with a nil Env = %v; want Unavailable saying the call was made with a nil abi.Env", err)
	}
}
