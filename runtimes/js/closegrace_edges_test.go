package js

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCloseLetsCallsInFlightUseTheHost: a provider closed while a call
// runs (a hot reload of its file, the host shutting down) lets that call
// finish within the grace (5 s), in a worker process as in-process — but
// the worker's stdin was closed at once, and it is also the way host
// calls are answered: a call that went on to ctx.callTool or
// ctx.spaces.* after the close waited for an answer that could not come,
// until the grace ran out and the worker was killed ("its provider was
// closed during the call"). The host keeps answering until the calls in
// flight are done (or the grace ends).
func TestCloseLetsCallsInFlightUseTheHost(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			path := writeSource(t, "reload.js", `
aios.registerTool({ name: 'slow', parameters: {} }, async (p, ctx) => {
  ctx.log('started');
  await new Promise((resolve) => setTimeout(resolve, 400));
  return ctx.callTool('echo', { v: 1 });
});
`)
			p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			env := newFakeEnv()
			env.tools["echo"] = func(ctx context.Context, params any) (any, error) { return params, nil }
			c := &abi.ToolCall{ID: "c1", Tool: "slow", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
			env.call = c
			type outcome struct {
				v   any
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				v, err := p.Call(context.Background(), c, env)
				done <- outcome{v, err}
			}()
			// Close once the handler runs (its log line is in).
			for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
				env.mu.Lock()
				n := len(env.logs)
				env.mu.Unlock()
				if n > 0 {
					break
				}
				if time.Since(start) > 20*time.Second {
					t.Fatal("the handler did not start")
				}
			}
			_ = p.Close()
			o := <-done
			if o.err != nil || !reflect.DeepEqual(o.v, map[string]any{"v": int64(1)}) {
				t.Fatalf("got %#v, %v; want the echo's {v: 1}", o.v, o.err)
			}
		})
	}
}
