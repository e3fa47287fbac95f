package host

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestReentrantHostCallKeepsCallersDeadline: a Host.Call made under a
// running call's context carries that call's deadline, as a nested call
// of Env.CallTool does, not limits.default_deadline: a call given minutes
// had the calls its handler made through the Host stopped at the default.
func TestReentrantHostCallKeepsCallersDeadline(t *testing.T) {
	te := newTestHost(t, nil) // limits.default_deadline: 5 s
	deadlines := make(chan time.Time, 2)
	p := native.New(abi.ProviderInfo{ID: "org.probe.reenterdl", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "outer", Version: "1.0.0", Parameters: obj(map[string]any{})},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			d, _ := ctx.Deadline()
			deadlines <- d
			return te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "inner", Params: map[string]any{}})
		})
	p.MustRegister(abi.ToolDef{Name: "inner", Version: "1.0.0", Parameters: obj(map[string]any{})},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			d, _ := ctx.Deadline()
			deadlines <- d
			return true, nil
		})
	addSystem(t, te, p)
	if _, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "outer", Params: map[string]any{},
		Deadline: time.Now().Add(10 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	outer, inner := <-deadlines, <-deadlines
	if !inner.Equal(outer) {
		t.Errorf("the call made through the Host has deadline %v, %v before its caller's", inner, outer.Sub(inner))
	}
}
