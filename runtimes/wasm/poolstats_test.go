package wasm

import (
	"context"
	"testing"
	"time"
)

// TestPoolStats: the aios_provider_pool metric's source (host.PoolStats)
// counts a provider's idle instances and those serving calls. No runtime
// implemented it, so the metric was always empty.
func TestPoolStats(t *testing.T) {
	l := newTestLoader(t, Config{PoolSize: 2}, nil)
	p := load(t, l, builtGuest(t, "conformance"))
	if err := p.Warm(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if idle, busy := p.PoolStats(); idle != 2 || busy != 0 {
		t.Fatalf("after warming 2: idle %d busy %d", idle, busy)
	}
	done := make(chan error, 1)
	go func() {
		// sleep busy-waits on the guest's clock: it runs to its deadline.
		_, err := call(p, newFakeEnv(p, 2), "sleep", map[string]any{"ms": int64(1) << 40}, 2*time.Second)
		done <- err
	}()
	for end := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
		if idle, busy := p.PoolStats(); idle == 1 && busy == 1 {
			break
		} else if time.Now().After(end) {
			t.Fatalf("during a call: idle %d busy %d, want 1 1", idle, busy)
		}
	}
	<-done
	if _, busy := p.PoolStats(); busy != 0 {
		t.Fatalf("after the call: busy %d", busy)
	}
}
