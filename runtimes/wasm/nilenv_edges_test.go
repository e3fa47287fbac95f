package wasm

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A guest's host call (here aios.call_tool) during a call made with a nil
// abi.Env (an embedder calling the provider directly, as the JS and Python
// runtimes allow) was refused "host calls are only served while the guest
// handles aios_call" — while it was handling aios_call. It now says the
// call has no host services because it was made with a nil Env, as the JS
// ("no host environment for this call") and Python runtimes say.
func TestHostCallWithNilEnvSaysNoEnv(t *testing.T) {
	l, err := NewLoader(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	p, err := l.Load(ctx, abi.Source{Path: builtGuest(t, "conformance")})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Call(ctx, &abi.ToolCall{Tool: "nested", Params: map[string]any{"tool": "echo", "params": map[string]any{"value": 1}},
		Deadline: time.Now().Add(30 * time.Second)}, nil)
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "nil abi.Env") || strings.Contains(err.Error(), "only served while") {
		t.Fatalf("nested call with a nil Env = %v; want Unavailable saying the call was made with a nil abi.Env", err)
	}
}
