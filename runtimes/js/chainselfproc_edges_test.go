package js

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProcessCallBackThroughAnotherProvider: a provider isolated in a
// worker process with a pool of one runtime, whose tool calls another
// provider that calls this one back (jsp → relay → jsp), waited until the
// deadline: the worker's only runtime waited for the nested call, which
// waited for that runtime. The host marks such a call (Envelope.Nested)
// and the worker serves it beyond its pool, as an in-process provider
// does (TestCallBackThroughAnotherProvider).
func TestProcessCallBackThroughAnotherProvider(t *testing.T) {
	p := loadIsolated(t, Options{PoolSize: 1}, `
aios.registerTool({name: 'jinner', parameters: {type: 'object'}}, (params) => ({inner: params.n}));
aios.registerTool({name: 'jouter', parameters: {type: 'object'}}, async (params, ctx) => {
  const r = await ctx.callTool('relay', {n: 7});
  return {got: r.inner};
});`)
	env := newFakeEnv()
	env.tools["relay"] = func(ctx context.Context, params any) (any, error) {
		c := &abi.ToolCall{ID: "back", Caller: "org.other.relay", Tool: "jinner", Params: params, Depth: 2, Deadline: time.Now().Add(20 * time.Second)}
		return p.Call(ctx, c, env)
	}
	start := time.Now()
	v, err := callIsolated(t, p, env, "jouter", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatalf("jouter → relay → jinner, worker process with a pool of 1: %v after %v", err, time.Since(start).Round(time.Millisecond))
	}
	if got := v.(map[string]any)["got"]; got != int64(7) {
		t.Fatalf("got %#v, want 7", got)
	}
	// A call from elsewhere with the same depth is not marked: it waits
	// for the pool as any other call does (here the pool is free).
	c := &abi.ToolCall{ID: "plain", Caller: "org.other.relay", Tool: "jinner", Params: map[string]any{"n": 1}, Depth: 2, Deadline: time.Now().Add(20 * time.Second)}
	if v, err := p.Call(context.Background(), c, env); err != nil || v.(map[string]any)["inner"] != int64(1) {
		t.Fatalf("unmarked call: %v, %v", v, err)
	}
}
