package host

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestParamsMarshalPanicRefused: params holding a Go value whose own
// MarshalJSON panics (a bug in the caller's type) panicked out of
// Host.Call, from the pipeline's params step, and the call had no audit
// record; passed by a native tool to env.CallTool, they panicked in the
// tool, which crashed (ProviderCrashed) without its nested call being
// made or recorded. Both are InvalidParams naming the tool and the panic,
// recorded as any refused call, as such a result is ProviderCrashed
// (TestNativeMarshalPanicIsProviderCrashed).
func TestParamsMarshalPanicRefused(t *testing.T) {
	te := newTestHost(t, nil)
	p := native.New(abi.ProviderInfo{ID: "org.test.paramspanic", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "pass-bad-json", Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			_, err := env.CallTool(ctx, "whoami", "", map[string]any{"v": panicJSON{}})
			if terr := abi.AsToolError(err, abi.Internal); terr != nil {
				return "nested: " + terr.Error(), nil
			}
			return "nested: no error", nil
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	recorded := map[string]abi.ErrorCode{}
	te.h.OnCall(func(s CallStats) { mu.Lock(); recorded[s.Tool] = s.Code; mu.Unlock() })
	call := func(tool string, params any) (v any, err error) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: the host panicked: %v", tool, r)
			}
		}()
		return te.call("alice", tool, params)
	}
	_, err := call("whoami", map[string]any{"v": panicJSON{}})
	if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), "params of whoami") || !strings.Contains(err.Error(), "index out of range") {
		t.Errorf("a call whose params' MarshalJSON panics: %v, want InvalidParams naming whoami and the panic", err)
	}
	mu.Lock()
	if c, ok := recorded["whoami"]; !ok || c != abi.InvalidParams {
		t.Errorf("the call was recorded %v (%v), want InvalidParams", ok, c)
	}
	delete(recorded, "whoami")
	mu.Unlock()
	v, err := call("pass-bad-json", map[string]any{})
	if s, _ := v.(string); err != nil || !strings.Contains(s, "InvalidParams") || !strings.Contains(s, "params of whoami") {
		t.Errorf("a nested call whose params' MarshalJSON panics: %v, %v; want the tool told InvalidParams naming whoami", v, err)
	}
	mu.Lock()
	if c, ok := recorded["whoami"]; !ok || c != abi.InvalidParams {
		t.Errorf("the nested call was recorded %v (%v), want InvalidParams", ok, c)
	}
	mu.Unlock()
}
