package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestNestedTimeoutNamesPendingCall: a handler whose deadline passed while
// it awaited ctx.callTool ended with "deadline exceeded while the handler
// of outer awaited 1 pending host calls or timers", never saying which
// nested call (which hop of a chain js → python → wasm) it waited for; a
// cancel said as little. Now the message names the host calls in flight:
// ctx.callTool("slow-inner"). (A timer is named as a timer.) The
// deadline is the call's alone, not the context's: the watchdog stops the
// handler, whose message ("the JS handler of provider … was interrupted")
// now says what it awaited too.
func TestNestedTimeoutNamesPendingCall(t *testing.T) {
	src := `aios.registerTool({ name: 'outer', parameters: { type: 'object' } }, async (p, ctx) => {
  setTimeout(() => {}, 60000);
  return await ctx.callTool('slow-inner', {});
});
`
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		rt := newRuntime(t, Options{Isolation: iso})
		path := writeSource(t, "outer.js", src)
		p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		for _, cancelled := range []bool{false, true} {
			if cancelled && iso == IsolationProcess {
				// (a worker process gets the nested call's own
				// Cancelled first, which names its tool in a host)
				continue
			}
			fe := newFakeEnv()
			fe.tools["slow-inner"] = func(ctx context.Context, _ any) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			deadline := time.Now().Add(2 * time.Second)
			ctx, cancel := context.WithCancel(context.Background())
			if cancelled {
				deadline = time.Now().Add(60 * time.Second)
				time.AfterFunc(time.Second, cancel)
			}
			c := &abi.ToolCall{ID: "c1", Tool: "outer", Params: map[string]any{}, Deadline: deadline}
			fe.call = c
			_, err := p.Call(ctx, c, fe)
			cancel()
			want := abi.Timeout
			if cancelled {
				want = abi.Cancelled
			}
			if abi.CodeOf(err) != want {
				t.Errorf("%s cancelled=%v: want %s, got %v", iso, cancelled, want, err)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, `ctx.callTool("slow-inner")`) || !strings.Contains(msg, "timer") {
				t.Errorf("%s cancelled=%v: %q does not name the nested call it awaited", iso, cancelled, msg)
			}
		}
	}
}
