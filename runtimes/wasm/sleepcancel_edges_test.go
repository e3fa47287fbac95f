package wasm

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRealClockSleepEndsAtCancel: a guest asleep in WASI poll_oneoff with
// a real clock wakes when its caller cancels the call (a client gone, a
// superseded request), on both engines; the call then ends as one
// cancelled while the guest runs: Cancelled when the guest runs on past
// the next check, else with the result it returns at once (this guest's:
// it returns when its sleep ends). On wazero the sleep ended at the
// call's deadline only: the cancelled call held its instance, a unit of
// the pool and its caller until then (30 s by default), where the
// wasmtime engine's sleep saw the cancel.
func TestRealClockSleepEndsAtCancel(t *testing.T) {
	const deadline = 20 * time.Second
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{Clock: "real"}, sleepWAT())
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := &abi.ToolCall{ID: "c1", Tool: "sleep", Params: map[string]any{}, Deadline: time.Now().Add(deadline)}
			env := *newFakeEnv(p, 2)
			env.call = c
			time.AfterFunc(200*time.Millisecond, cancel)
			start := time.Now()
			_, err := p.Call(ctx, c, &env)
			took := time.Since(start)
			if err != nil && abi.CodeOf(err) != abi.Cancelled || took >= deadline/2 {
				t.Errorf("a sleeping call cancelled after 200ms: %v after %v, want its result or Cancelled well before its %v deadline", err, took, deadline)
			}
		})
	}
}
