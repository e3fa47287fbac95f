package js

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/hostop"
)

// TestProcessSelfFanOutNoDeadlock: concurrent calls of a tool that fans
// out with ctx.callTool to a tool of its own provider all return, in a
// worker process as in-process. Once hostop.MaxInFlight host calls of the
// worker ran, the host stopped reading its frames until one finished; but
// those host calls were calls back into the same worker, whose results
// only that reading brings in: nothing moved until the deadline, and every
// call failed with Timeout, the worker killed.
func TestProcessSelfFanOutNoDeadlock(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "fan.js", `
aios.registerTool({name: 'leaf', parameters: {}}, (p) => p.i * 2);
aios.registerTool({name: 'fan', parameters: {}}, async (p, ctx) => {
  const rs = await Promise.all(Array.from({length: p.n}, (_, i) => ctx.callTool('leaf', {i})));
  return rs.reduce((a, b) => a + b, 0);
});
`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			// The host routes the nested call back to the provider.
			env.tools["leaf"] = func(ctx context.Context, params any) (any, error) {
				return p.Call(ctx, &abi.ToolCall{ID: "leaf", Tool: "leaf", Params: params, Depth: 1,
					Caller: p.Describe().Provider.ID, Deadline: time.Now().Add(20 * time.Second)}, env)
			}
			const calls, n = 3, 2 * hostop.MaxInFlight
			errs := make(chan error, calls)
			for range calls {
				go func() {
					v, err := p.Call(context.Background(), &abi.ToolCall{ID: "fan", Tool: "fan", Params: map[string]any{"n": int64(n)},
						Deadline: time.Now().Add(time.Minute)}, env) // a deadlock waits it out; a loaded machine needed more than 5 s
					if err == nil && v != int64(n*(n-1)) {
						t.Errorf("fan: %v, want %d", v, n*(n-1))
					}
					errs <- err
				}()
			}
			for range calls {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
