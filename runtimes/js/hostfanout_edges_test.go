package js

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/hostop"
)

// TestInProcessHostCallsInFlightBounded: an in-process provider's
// ctx.callTool (and ctx.spaces.*, ctx.ai.complete) started a goroutine and
// a host call at once, however many the handler started: a Promise.all of
// 15 000 ctx.callTool had 15 000 nested calls running or waiting in the
// host at once (430 MB), where a provider isolated in a worker process has
// at most hostop.MaxInFlight (64) running and the rest wait
// (TestProcessHostCallsInFlightBounded). In-process calls now get the same
// bound, per call: past 64 a host call waits for one to finish, and every
// one is served.
func TestInProcessHostCallsInFlightBounded(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "fan.js", `
aios.registerTool({name: 'fan', parameters: {type: 'object'}}, async (params, ctx) => {
  const rs = await Promise.all(Array.from({length: 300}, (_, i) => ctx.callTool('slow', {i})));
  return rs.length;
});`)
	env := newFakeEnv()
	var now, most atomic.Int32
	env.tools["slow"] = func(ctx context.Context, params any) (any, error) {
		n := now.Add(1)
		defer now.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
		}
		return map[string]any{}, nil
	}
	v, err := call(t, p, env, "fan", map[string]any{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if v != int64(300) {
		t.Fatalf("fan = %#v, want 300", v)
	}
	if m := most.Load(); m > hostop.MaxInFlight {
		t.Fatalf("%d host calls of one call ran at once; want at most %d", m, hostop.MaxInFlight)
	}
}
