//go:build wasmtime

package wasmtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A call that needs a new instance (cold pool) runs the component's start
// code under its deadline (TestComponentStartUnderCallDeadline), and now
// under its caller's cancel too: the epoch callback read the context of a
// running call only, and start code has none, so a caller that cancelled
// while a slow start ran waited for the whole start (then got Cancelled).
func TestProbeStartStopsOnCancel(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1})
	start := time.Now()
	p, err := l.LoadBytes(context.Background(), abi.Source{Path: "slowstart.wasm"}, slowStartComponent(2_000_000_000))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	startCost := time.Since(start)
	if startCost < 600*time.Millisecond {
		t.Skipf("start code took only %v: too fast to tell", startCost)
	}
	wp := p.(*Provider)
	wp.release(<-wp.pool) // the next call needs a new instance
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	_, err = wp.Call(ctx, &abi.ToolCall{ID: "c", Tool: "run", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, &fakeEnv{})
	took := time.Since(start)
	if abi.CodeOf(err) != abi.Cancelled || took > startCost/2 {
		t.Fatalf("call cancelled 50 ms into a new instance's start (which takes %v): %v after %v, want Cancelled at once", startCost, err, took)
	}
	if !strings.Contains(err.Error(), "new instance") {
		t.Errorf("Cancelled %q does not say a new instance was starting", err)
	}
	if n := wp.Instances(); n != 0 {
		t.Errorf("%d instances left after the cancelled start, want 0", n)
	}
}
