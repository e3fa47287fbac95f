package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestStoredCtxServesOnlyTheCurrentCall: a provider that keeps ctx
// (and a pending timer) from one call and uses it later never acts with
// that call's Env: in a later call, on the same pooled runtime, a kept ctx
// reaches the later call's Env; a timer left from the earlier call never
// runs in the later one; in a worker process as in the host (guard test,
// no defect).
func TestStoredCtxServesOnlyTheCurrentCall(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) { storedCtx(t, iso) })
	}
}

const keeperJS = `
let kept = null;
let fired = 0;
aios.registerTool({name: "keep"}, async (params, ctx) => {
  kept = ctx;
  const v = await ctx.callTool("who", {});
  // Set as the call ends: due 50 ms later, in the next call. (Set before
  // the host call, it fired within this call when the host call took
  // longer than 50 ms, on a loaded machine.)
  setTimeout(() => { fired++; kept.callTool("who", {from: "timer"}); }, 50);
  return v;
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

// TestNoGoObjectThroughToolError: a host call's error is made with the
// SDK's ToolError class, which the provider's code can break
// (Object.setPrototypeOf(aios.ToolError, a function that throws)). The
// fallback was goja's GoError, whose "value" is the host's *abi.ToolError
// itself, wrapped: the tool read and wrote the Go struct's fields and called
// its methods (e.value.Message = "…", e.value.Error()). It is now a plain
// Error carrying code, message and a copy of data.
func TestNoGoObjectThroughToolError(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1, Isolation: IsolationInProcess})
	p := loadSource(t, rt, "breaker.js", `
aios.registerTool({name: "x"}, async (params, ctx) => {
  Object.setPrototypeOf(aios.ToolError, function () { throw new Error("no ToolError for you"); });
  try {
    await ctx.callTool("missing", {});
    return {caught: false};
  } catch (e) {
    let wrote = false;
    if (e.value && typeof e.value === "object") {
      try { e.value.Message = "rewritten by the tool"; wrote = true; } catch (_) {}
    }
    return {caught: true, goValue: typeof e.value, wrote, code: String(e.code), message: String(e.message), isError: e instanceof Error};
  }
});
`)
	env := newFakeEnv()
	v, err := call(t, p, env, "x", map[string]any{}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["goValue"] != "undefined" || m["wrote"] != false {
		t.Errorf("the tool reached the host's Go error value: %v", m)
	}
	if m["caught"] != true || m["code"] != "NotFound" || !strings.Contains(m["message"].(string), `no tool "missing"`) || m["isError"] != true {
		t.Errorf("the error lost its code or message: %v", m)
	}
}
