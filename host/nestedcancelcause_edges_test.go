package host

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestNestedShutdownCancelSaidOnce: a chain of calls cancelled when the
// host shuts down (its context's cause ErrShuttingDown) said so once per
// call of the chain, each around the one below: "the host is shutting
// down (the host is shutting down (the host is shutting down (tool …
// stopped …)))". The caller is told once, before the words of the tool
// that stopped; every call of the chain is recorded Cancelled.
func TestNestedShutdownCancelSaidOnce(t *testing.T) {
	te := newTestHost(t, nil)
	var mu sync.Mutex
	recorded := map[string]string{}
	te.h.OnCall(func(s CallStats) { mu.Lock(); recorded[s.CallID] = string(s.Code); mu.Unlock() })
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	p := native.New(abi.ProviderInfo{ID: "org.test.chain", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "wait-cancel", Version: "1.0.0"}, func(ctx context.Context, _ any, _ abi.Env) (any, error) {
		cancel(ErrShuttingDown)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	p.MustRegister(abi.ToolDef{Name: "relay", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		next, _ := params.(map[string]any)["next"].(string)
		return env.CallTool(ctx, next, "", map[string]any{"next": "wait-cancel"})
	})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	_, err := te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "relay", Params: map[string]any{"next": "relay"}})
	msg := err.Error()
	if abi.CodeOf(err) != abi.Cancelled || strings.Count(msg, ErrShuttingDown.Error()) != 1 ||
		!strings.Contains(msg, ErrShuttingDown.Error()+" (tool wait-cancel@1.0.0 of provider org.test.chain stopped") {
		t.Errorf("a chain of three calls cancelled at shutdown: %v; want Cancelled saying once that the host is shutting down, then how wait-cancel stopped", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(recorded) != 3 {
		t.Errorf("%d calls observed, want the 3 of the chain", len(recorded))
	}
	for id, code := range recorded {
		if code != string(abi.Cancelled) {
			t.Errorf("call %s: %s, want Cancelled", id, code)
		}
	}
}
