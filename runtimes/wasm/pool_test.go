package wasm

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

type poolNestKey struct{}

func TestPoolBoundTimeoutAndCancel(t *testing.T) {
	q := newPool[int](2, "runtimes.wasm.pool_size")
	ctx := context.Background()
	call := &abi.ToolCall{Tool: "echo", Deadline: time.Now().Add(30 * time.Millisecond)}
	for range 2 {
		if _, over, err := q.acquire(ctx, call, poolNestKey{}, "p"); err != nil || over {
			t.Fatalf("acquire within the bound = %v, %v", over, err)
		}
	}
	_, _, err := q.acquire(ctx, call, poolNestKey{}, "p")
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.Timeout {
		t.Fatalf("acquire past the bound = %v, want Timeout", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	_, _, err = q.acquire(cctx, &abi.ToolCall{Tool: "echo"}, poolNestKey{}, "p")
	if !errors.As(err, &te) || te.Code != abi.Cancelled {
		t.Fatalf("acquire cancelled = %v, want Cancelled", err)
	}
	// A nested call into the same provider overflows instead of waiting.
	nctx := context.WithValue(ctx, poolNestKey{}, true)
	if _, over, err := q.acquire(nctx, &abi.ToolCall{Tool: "echo", Depth: 1}, poolNestKey{}, "p"); err != nil || !over {
		t.Fatalf("nested acquire on a full pool = %v, %v; want overflow", over, err)
	}
	// A release wakes a blocked acquire.
	got := make(chan error, 1)
	go func() {
		_, _, err := q.acquire(ctx, &abi.ToolCall{Tool: "echo", Deadline: time.Now().Add(5 * time.Second)}, poolNestKey{}, "p")
		got <- err
	}()
	time.Sleep(10 * time.Millisecond)
	q.Release()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("woken acquire = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("release did not wake the blocked acquire")
	}
}

// TestPoolStress: many goroutines acquire and release; the number holding
// a unit never exceeds the bound, nobody is left waiting, and idle
// instances are handed out once each.
func TestPoolStress(t *testing.T) {
	const size, goroutines, rounds = 3, 16, 300
	q := newPool[int](size, "runtimes.wasm.pool_size")
	var held, peak atomic.Int32
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				call := &abi.ToolCall{Tool: "echo", Deadline: time.Now().Add(10 * time.Second)}
				if _, _, err := q.acquire(context.Background(), call, poolNestKey{}, "p"); err != nil {
					t.Error(err)
					return
				}
				n := held.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				x := q.take()
				if x == nil {
					v := g*rounds + i
					x = &v
				}
				if !q.give(x) {
					t.Error("give failed with a unit of the bound held")
				}
				held.Add(-1)
				q.Release()
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > size {
		t.Fatalf("%d held at once, bound %d", p, size)
	}
	if n := q.Busy(); n != 0 {
		t.Fatalf("busy = %d after every release", n)
	}
	idle := q.drain()
	seen := map[*int]bool{}
	for _, x := range idle {
		if seen[x] {
			t.Fatal("an instance sits in two slots")
		}
		seen[x] = true
	}
	if len(idle) == 0 || len(idle) > size || len(q.idle()) != 0 {
		t.Fatalf("drain = %d instances, idle after = %d", len(idle), len(q.idle()))
	}
	a, b := 1, 2
	q.give(&a)
	if !q.remove(&a) || q.remove(&b) || q.take() != nil {
		t.Fatal("remove/take after give")
	}
}
