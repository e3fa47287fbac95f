package js

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCloseRefusesCallsQueuedInWorker: a provider closed (removed,
// replaced by a reload, the host shutting down) while a call waits for
// one of its busy JS runtimes refuses that call at once with Unavailable,
// in a worker process as in-process. In a worker the queued call ran
// after the close, once the busy runtime was free: a removed provider
// went on starting calls (and their side effects) for up to the grace.
func TestCloseRefusesCallsQueuedInWorker(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso, PoolSize: 1})
			path := writeSource(t, "queued.js", `
aios.registerTool({ name: 'busy', parameters: {} }, async (p, ctx) => ctx.callTool('gate', {}));
aios.registerTool({ name: 'effect', parameters: {} }, async (p, ctx) => ctx.callTool('effect', {}));
`)
			p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			entered, release := make(chan struct{}), make(chan struct{})
			env.tools["gate"] = func(context.Context, any) (any, error) {
				close(entered)
				<-release
				return "done", nil
			}
			var effects atomic.Int32
			env.tools["effect"] = func(context.Context, any) (any, error) { effects.Add(1); return nil, nil }
			do := func(tool string) chan error {
				ch := make(chan error, 1)
				go func() {
					_, err := p.Call(context.Background(), &abi.ToolCall{ID: tool, Tool: tool, Deadline: time.Now().Add(30 * time.Second)}, env)
					ch <- err
				}()
				return ch
			}
			busy := do("busy")
			<-entered // the pool's one runtime is busy
			queued := do("effect")
			// Wait until the second call has reached the provider (the
			// worker's calls, or the in-process pool's waiters).
			for start := time.Now(); !reachedProvider(p, 2); time.Sleep(5 * time.Millisecond) {
				if time.Since(start) > 20*time.Second {
					t.Fatal("the second call did not reach the provider")
				}
			}
			_ = p.Close()
			var qerr error
			select {
			case qerr = <-queued:
			case <-time.After(3 * time.Second):
				close(release)
				qerr = <-queued
				t.Errorf("the queued call did not end at the close: it waited for the busy call (then: %v)", qerr)
			}
			select {
			case <-release:
			default:
				close(release)
			}
			if err := <-busy; err != nil {
				t.Fatalf("the call in flight at the close: %v", err)
			}
			te := wantCode(t, qerr, abi.Unavailable)
			if n := effects.Load(); n != 0 {
				t.Fatalf("the queued call ran after the close (%d side effects): %v", n, te)
			}
		})
	}
}

// reachedProvider reports whether n calls have reached p: the calls sent
// to its worker process, or (in-process) always, as a call is queued at
// once.
func reachedProvider(p abi.Provider, n int) bool {
	pp, ok := p.(*ProcessProvider)
	if !ok {
		time.Sleep(50 * time.Millisecond) // a call blocks in the pool right away
		return true
	}
	pp.mu.Lock()
	w := pp.w
	pp.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.calls) >= n
}
