package component

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestPoolStats: the aios_provider_pool metric's source (host.PoolStats)
// counts a component's idle instances and those serving calls.
func TestPoolStats(t *testing.T) {
	p := load(t, "conformance")
	done := make(chan error, 1)
	go func() {
		// sleep busy-waits on the guest's clock: it runs to its deadline.
		_, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "sleep", Params: map[string]any{"ms": int64(1) << 40}, Deadline: time.Now().Add(2 * time.Second)}, &fakeEnv{})
		done <- err
	}()
	for end := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, busy := p.PoolStats(); busy == 1 {
			break
		} else if time.Now().After(end) {
			t.Fatalf("during a call: busy %d, want 1", busy)
		}
	}
	if err := <-done; abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("sleep: %v, want Timeout", err)
	}
	if _, err := call(t, p, &fakeEnv{}, "echo", map[string]any{"value": "x"}); err != nil {
		t.Fatal(err)
	}
	if idle, busy := p.PoolStats(); idle != 1 || busy != 0 {
		t.Fatalf("after a call: idle %d busy %d, want 1 0", idle, busy)
	}
}
