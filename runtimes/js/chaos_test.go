package js

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCloseKeepsDeadlinesOfCallsInFlight: Runtime.Close stopped the
// guard at once, and the guard is what interrupts an in-process call at
// its deadline: a call spinning when the runtime was closed (the host
// closing under it: `aios-host run` closes the JS runtime after the host)
// ran on past its deadline to its natural end. The guard now watches the
// calls in flight to their end.
func TestCloseKeepsDeadlinesOfCallsInFlight(t *testing.T) {
	rt := newRuntime(t, Options{Isolation: IsolationInProcess})
	p := loadSource(t, rt, "spin.js", `aios.provider({ id: 'org.t.spin', name: 'spin' });
aios.registerTool({ name: 'spin', parameters: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
  (p) => { const end = Date.now() + p.ms; while (Date.now() < end) { /* spin */ } return { spun: p.ms }; });`)
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		c := &abi.ToolCall{ID: "c1", Tool: "spin", Params: map[string]any{"ms": int64(10000)}, Deadline: start.Add(500 * time.Millisecond)}
		_, err := p.Call(ctx, c, newFakeEnv())
		done <- err
	}()
	time.Sleep(150 * time.Millisecond) // spinning
	closed := make(chan struct{})
	go func() {
		_ = p.Close()
		_ = rt.Close()
		close(closed)
	}()
	select {
	case err := <-done:
		wantCode(t, err, abi.Timeout)
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("the call ended %s after it started; its deadline was 500ms", took)
		}
	case <-time.After(6 * time.Second):
		t.Fatal("a call spinning when its runtime was closed ran 6 s past its 500ms deadline")
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
}
