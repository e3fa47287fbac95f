package wasm

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestPoolSizeBounded: a pool_size past what a host can hold is a
// config error naming the key, not an allocation of 64 bytes per slot at
// the first load (pool_size: 1000000000 asked for 64 GB and killed the
// host out of memory).
func TestPoolSizeBounded(t *testing.T) {
	for _, tc := range []struct {
		c   Config
		key string
	}{
		{Config{PoolSize: 1 << 30}, "runtimes.wasm.pool_size"},
		{Config{PoolSize: MaxPoolSize + 1}, "runtimes.wasm.pool_size"},
		{Config{Providers: map[string]ProviderConfig{"big": {PoolSize: 1 << 40}}}, "runtimes.wasm.providers.big.pool_size"},
	} {
		if _, err := tc.c.withDefaults(); err == nil || !strings.HasPrefix(err.Error(), tc.key+":") || !strings.Contains(err.Error(), "1024") {
			t.Errorf("%+v: %v, want an error naming %s and the bound", tc.c, err, tc.key)
		}
	}
	if c, err := (Config{PoolSize: MaxPoolSize, Providers: map[string]ProviderConfig{"p": {PoolSize: MaxPoolSize}}}).withDefaults(); err != nil || c.PoolSize != MaxPoolSize {
		t.Fatalf("pool_size %d: %v", MaxPoolSize, err)
	}
}

// TestPoolTimeoutsFreeSlots: many calls of a guest that loops, on a
// pool of 2, all end in Timeout at their deadline (interrupted, or never
// given an instance: named runtimes.wasm.pool_size), and every slot is free
// afterwards: busy is 0 and the next call runs at once.
func TestPoolTimeoutsFreeSlots(t *testing.T) {
	l := newTestLoader(t, Config{PoolSize: 2, DeadlineGranularity: time.Millisecond}, nil)
	p := load(t, l, buildWAT(t, basicWAT("org.test.poolload", 2)))
	env := newFakeEnv(p, 5)
	var wg sync.WaitGroup
	var waited atomic.Int32
	start := time.Now()
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := call(p, env, "loop", nil, 80*time.Millisecond)
			if abi.CodeOf(err) != abi.Timeout {
				t.Errorf("loop: %v, want Timeout", err)
			}
			if err != nil && strings.Contains(err.Error(), "runtimes.wasm.pool_size") {
				waited.Add(1)
			}
		}()
	}
	wg.Wait()
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("12 loops of 80ms on a pool of 2 took %v", d)
	}
	if waited.Load() == 0 {
		t.Errorf("no call reported waiting for the pool")
	}
	if b := p.pool.Busy(); b != 0 {
		t.Fatalf("pool busy %d after every call ended", b)
	}
	if _, err := call(p, env, "const", nil, 200*time.Millisecond); err != nil {
		t.Fatalf("a call after the timeouts: %v", err)
	}
}
