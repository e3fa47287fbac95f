package js

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestSelfNestedCallsDoNotDeadlock: a tool that awaits another tool of its
// own provider, with every pooled runtime busy in such calls (a pool of
// one), is served by a runtime beyond the pool instead of waiting for the
// runtime that waits for it until the deadline. The fake Env routes the
// nested call back into the provider as the host does (caller = the
// provider, depth + 1).
func TestSelfNestedCallsDoNotDeadlock(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1})
	p := loadSource(t, rt, "self.js", `
aios.registerTool({name: 'jinner', parameters: {type: 'object'}}, (params) => ({inner: params.n}));
aios.registerTool({name: 'jouter', parameters: {type: 'object'}}, async (params, ctx) => {
  const rs = await Promise.all([1, 2, 3].map((n) => ctx.callTool('jinner', {n})));
  return {sum: rs.reduce((a, r) => a + Number(r.inner), 0)};
});`)
	env := newFakeEnv()
	env.tools["jinner"] = func(ctx context.Context, params any) (any, error) {
		c := &abi.ToolCall{ID: "nested", Caller: p.Describe().Provider.ID, Tool: "jinner", Params: params, Depth: 1, Deadline: time.Now().Add(10 * time.Second)}
		return p.Call(ctx, c, env)
	}
	for i := range 3 {
		v, err := call(t, p, env, "jouter", map[string]any{}, 10*time.Second)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := v.(map[string]any)["sum"]; got != int64(6) {
			t.Fatalf("call %d: sum = %#v, want 6", i, got)
		}
	}
	if n := len(p.tokens); n > 1 {
		t.Errorf("%d pooled runtimes live after the calls, want at most 1 (extra ones are dropped after their call)", n)
	}
	if n := len(p.extras); n != 0 {
		t.Errorf("%d runtimes beyond the pool still live after the calls", n)
	}

	// A call from anyone else still waits for the pool (and times out):
	// only a provider's own nested calls (and those that come back along
	// the chain of its ctx.callTool, TestCallBackThroughAnotherProvider)
	// get runtimes beyond it. This one comes from elsewhere: not from
	// the context of jouter's host call.
	env.tools["jinner"] = func(_ context.Context, params any) (any, error) {
		c := &abi.ToolCall{ID: "other", Caller: "someone-else", Tool: "jinner", Params: params, Depth: 1, Deadline: time.Now().Add(300 * time.Millisecond)}
		cctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		return p.Call(cctx, c, env)
	}
	if _, err := call(t, p, env, "jouter", map[string]any{}, 10*time.Second); err == nil {
		t.Error("a nested call by another caller was served beyond the pool")
	}
}
