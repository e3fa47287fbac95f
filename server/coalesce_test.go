package server

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Many refreshes at once cost at most two runs, and each caller's answer
// comes from a run that began after it asked.
func TestCoalescer(t *testing.T) {
	var c coalescer
	var runs atomic.Int64
	var mu sync.Mutex
	var starts []time.Time
	release := make(chan struct{})
	job := func(context.Context) (int, error) {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		n := runs.Add(1)
		if n == 1 {
			<-release // the first run is slow: the others queue behind it
		}
		return int(n), nil
	}
	first := make(chan int)
	go func() { n, _ := c.do(context.Background(), job); first <- n }()
	for runs.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	asked := time.Now()
	got := make([]int, 20)
	for i := range got {
		wg.Go(func() { got[i], _ = c.do(context.Background(), job) })
	}
	time.Sleep(50 * time.Millisecond) // all 20 are waiting
	close(release)
	wg.Wait()
	if n := <-first; n != 1 {
		t.Fatalf("first caller got run %d", n)
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("%d runs for 21 callers, want 2", n)
	}
	for i, n := range got {
		if n != 2 {
			t.Fatalf("caller %d answered from run %d, want the run that began after it asked", i, n)
		}
	}
	if !starts[1].After(asked) {
		t.Fatalf("the shared run began at %v, before the callers asked at %v", starts[1], asked)
	}
	// Idle again (once the queue has drained): the next caller runs at once.
	for {
		c.mu.Lock()
		idle := !c.running
		c.mu.Unlock()
		if idle {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if n, _ := c.do(context.Background(), job); n != 3 {
		t.Fatalf("after the queue drained: run %d, want 3", n)
	}
	// A waiting caller whose context ends returns.
	var c2 coalescer
	block := make(chan struct{})
	go func() {
		_, _ = c2.do(context.Background(), func(context.Context) (int, error) { <-block; return 0, nil })
	}()
	for {
		c2.mu.Lock()
		r := c2.running
		c2.mu.Unlock()
		if r {
			break
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c2.do(ctx, job); err == nil {
		t.Fatal("a cancelled waiter returned no error")
	}
	close(block)
}
