package js

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCallBackThroughAnotherProvider: a JS tool calling a tool of
// another provider (any runtime) that calls back into the JS provider
// (jouter → relay → jinner) with a pool of one waited for the runtime that
// waits for it until the deadline: only a nested call whose caller was the
// JS provider itself got a runtime beyond the pool. A call that comes back
// along its own chain of calls is served beyond the pool too. The fake Env
// plays the host: the relay's call carries on the context it was called
// with, caller = the relay's provider, depth + 1.
func TestCallBackThroughAnotherProvider(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1})
	p := loadSource(t, rt, "chain.js", `
aios.registerTool({name: 'jinner', parameters: {type: 'object'}}, (params) => ({inner: params.n}));
aios.registerTool({name: 'jouter', parameters: {type: 'object'}}, async (params, ctx) => {
  const r = await ctx.callTool('relay', {n: 7});
  return {got: r.inner};
});`)
	env := newFakeEnv()
	env.tools["relay"] = func(ctx context.Context, params any) (any, error) {
		c := &abi.ToolCall{ID: "back", Caller: "org.other.relay", Tool: "jinner", Params: params, Depth: 2, Deadline: time.Now().Add(3 * time.Second)}
		return p.Call(ctx, c, env)
	}
	start := time.Now()
	v, err := call(t, p, env, "jouter", map[string]any{}, 3*time.Second)
	if err != nil {
		t.Fatalf("jouter → relay → jinner, pool of 1: %v after %v", err, time.Since(start).Round(time.Millisecond))
	}
	if got := v.(map[string]any)["got"]; got != int64(7) {
		t.Fatalf("got %#v, want 7", got)
	}
	if n := len(p.extras); n != 0 {
		t.Errorf("%d runtimes beyond the pool still live after the call", n)
	}
}
