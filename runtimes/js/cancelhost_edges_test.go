package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCancelDuringHostCallSaysWhy: a call cancelled by its caller while
// its handler awaits a host call whose tool ends with the cancellation
// says what the handler awaited, in a worker process as in-process. In a
// worker it was "Cancelled: context canceled": the host call's answer
// (the nested tool's own error) reached the worker before the
// cancellation, and the handler's rejection became the call's error.
func TestCancelDuringHostCallSaysWhy(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "hold.js",
				`aios.registerTool({name: 'hold', parameters: {}}, async (p, ctx) => ctx.callTool('inner', {}));`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			entered := make(chan struct{}, 1)
			env.tools["inner"] = func(ctx context.Context, _ any) (any, error) {
				entered <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			}
			for i := range 3 {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				go func() { <-entered; cancel() }()
				_, err := p.Call(ctx, &abi.ToolCall{ID: "c", Tool: "hold", Params: map[string]any{}}, env)
				cancel()
				te := wantCode(t, err, abi.Cancelled)
				if want := `ctx.callTool("inner")`; !strings.Contains(te.Message, want) || !strings.Contains(te.Message, "cancelled by its caller") {
					t.Fatalf("call %d: the cancellation does not say it came from the caller while the handler awaited %s: %s", i, want, te.Message)
				}
			}
		})
	}
}
