package js

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProbeStoredCtxServesOnlyTheCurrentCall: a provider that keeps ctx
// (and a pending timer) from one call and uses it later never acts with
// that call's Env: in a later call, on the same pooled runtime, a kept ctx
// reaches the later call's Env; a timer left from the earlier call never
// runs in the later one; in a worker process as in the host (guard test,
// no defect).
func TestProbeStoredCtxServesOnlyTheCurrentCall(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) { storedCtx(t, iso) })
	}
}

const keeperJS = `
let kept = null;
let fired = 0;
aios.registerTool({name: "keep"}, async (params, ctx) => {
  kept = ctx;
  setTimeout(() => { fired++; kept.callTool("who", {from: "timer"}); }, 50);
  return await ctx.callTool("who", {});
});
aios.registerTool({name: "use"}, async (params, ctx) => {
  const v = await kept.callTool("who", {});
  await new Promise(r => setTimeout(r, 100)); // the earlier call's timer would be due
  return {v, fired};
});
`

func storedCtx(t *testing.T, iso string) {
	var p abi.Provider
	if iso == IsolationProcess {
		p = loadIsolated(t, Options{PoolSize: 1}, keeperJS)
	} else {
		p = loadSource(t, newRuntime(t, Options{PoolSize: 1, Isolation: iso}), "keeper.js", keeperJS)
	}
	env1, env2 := newFakeEnv(), newFakeEnv()
	timerCalls := 0
	env1.tools["who"] = func(_ context.Context, params any) (any, error) {
		if m, _ := params.(map[string]any); m["from"] == "timer" {
			timerCalls++
		}
		return "env1", nil
	}
	env2.tools["who"] = func(_ context.Context, params any) (any, error) {
		if m, _ := params.(map[string]any); m["from"] == "timer" {
			timerCalls++
		}
		return "env2", nil
	}
	v, err := callIsolated(t, p, env1, "keep", map[string]any{}, 5*time.Second)
	if err != nil || v != "env1" {
		t.Fatalf("keep: %v %v", v, err)
	}
	v, err = callIsolated(t, p, env2, "use", map[string]any{}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["v"] != "env2" {
		t.Errorf("a ctx kept from the first call reached %v, want the current call's env2", m["v"])
	}
	if m["fired"] != int64(0) || timerCalls != 0 {
		t.Errorf("the first call's timer ran in the second call (fired %v, host calls from it %d)", m["fired"], timerCalls)
	}
}
