package js

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLateMicrotaskStaysInItsCall: a getter of a call's result (or
// of the value it threw) runs while the host converts it, after the
// handler returned; a promise reaction it queues (Promise.resolve().then)
// ran at the start of the runtime's next call, another agent's, where
// ctx served that call: the first call's code, holding the first caller's
// params, made a host call with the second call's Env and grants. A
// reaction queued there runs before the call ends, with its own call's
// ctx, in process and in a worker process.
func TestLateMicrotaskStaysInItsCall(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) { lateMicrotask(t, iso) })
	}
}

const lateMicrotaskJS = `
aios.registerTool({name: "result"}, async (params, ctx) => ({
  get x() { Promise.resolve().then(() => ctx.callTool("who", {from: "result", secret: params.secret})); return 1; }
}));
aios.registerTool({name: "thrown"}, (params, ctx) => {
  throw { get message() { Promise.resolve().then(() => ctx.callTool("who", {from: "thrown", secret: params.secret})); return "no"; } };
});
aios.registerTool({name: "rejected"}, async (params, ctx) => {
  await null;
  throw { get message() { Promise.resolve().then(() => ctx.callTool("who", {from: "rejected", secret: params.secret})); return "no"; } };
});
aios.registerTool({name: "next"}, async (params, ctx) => await ctx.callTool("who", {from: "next"}));
`

func lateMicrotask(t *testing.T, iso string) {
	var p abi.Provider
	if iso == IsolationProcess {
		p = loadIsolated(t, Options{PoolSize: 1}, lateMicrotaskJS)
	} else {
		p = loadSource(t, newRuntime(t, Options{PoolSize: 1, Isolation: iso}), "late.js", lateMicrotaskJS)
	}
	for _, first := range []string{"result", "thrown", "rejected"} {
		var mu sync.Mutex
		var seenByB []any
		envA, envB := newFakeEnv(), newFakeEnv()
		envA.tools["who"] = func(context.Context, any) (any, error) { return "A", nil }
		envB.tools["who"] = func(_ context.Context, params any) (any, error) {
			mu.Lock()
			seenByB = append(seenByB, params)
			mu.Unlock()
			return "B", nil
		}
		_, _ = callIsolated(t, p, envA, first, map[string]any{"secret": "A's"}, 5*time.Second)
		v, err := callIsolated(t, p, envB, "next", map[string]any{}, 5*time.Second)
		if err != nil || v != "B" {
			t.Fatalf("%s, then next: %v %v", first, v, err)
		}
		mu.Lock()
		for _, s := range seenByB {
			if m, _ := s.(map[string]any); m["from"] != "next" {
				t.Errorf("after %s, the next call's Env served a host call of the earlier call: %v", first, s)
			}
		}
		mu.Unlock()
	}
}
