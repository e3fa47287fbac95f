package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestNeverSettlingPromiseSaysSo: a handler returning a promise nothing
// settles (new Promise(() => {}), a resolve never called) waited out its
// deadline and failed "deadline exceeded: the JS handler of provider … was
// interrupted" when the call's deadline came first, as if it had been busy,
// naming neither the tool nor the promise, or "… awaited 0 pending host
// calls or timers" when its context's did (found by p118). Both now name
// the tool and say that its promise never settled with nothing pending
// that could settle it.
func TestNeverSettlingPromiseSaysSo(t *testing.T) {
	src := `aios.registerTool({ name: 'stuck' }, async (p: unknown) => {
  await new Promise<void>((resolve) => { /* resolve is never called */ });
  return 1;
});
`
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			path := writeSource(t, "stuck.ts", src)
			p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeTS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			for _, byCtx := range []bool{false, true} {
				fe := newFakeEnv()
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				deadline := time.Now().Add(400 * time.Millisecond)
				if byCtx {
					ctx, cancel = context.WithTimeout(ctx, 400*time.Millisecond)
					deadline = time.Now().Add(time.Minute)
				}
				c := &abi.ToolCall{ID: "c1", Tool: "stuck", Params: map[string]any{}, Deadline: deadline}
				fe.call = c
				_, err := p.Call(ctx, c, fe)
				cancel()
				if abi.CodeOf(err) != abi.Timeout {
					t.Fatalf("byCtx=%v: want Timeout, got %v", byCtx, err)
				}
				for _, w := range []string{"stuck", "never settled"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("byCtx=%v: %q lacks %q", byCtx, err, w)
					}
				}
			}
		})
	}
}
