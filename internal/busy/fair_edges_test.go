package busy

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWaitersServedFirst: a unit given back went to whichever call
// asked next, so a call waiting for a full pool lost it to calls that came
// after it (their TryAcquire took it before the woken waiter ran) and went
// back to waiting, at the end of the channel's queue: 16 callers of a pool
// of 2, each holding an instance 1 ms, had 52 calls time out after waiting
// 500 ms while the others were served in a few ms. A unit given back goes
// to the call that has waited longest, and a call that comes while others
// wait queues behind them.
func TestWaitersServedFirst(t *testing.T) {
	b := New(1)
	if !b.TryAcquire() {
		t.Fatal("first TryAcquire")
	}
	ctx := context.Background()
	got := make(chan int, 3)
	for i := range 3 {
		go func() {
			if _, err := b.Acquire(ctx, time.Now().Add(30*time.Second), false, "p", "t", "k"); err != nil {
				t.Error(err)
				return
			}
			got <- i
		}()
		// The next waiter comes after this one has joined the queue.
		for end := time.Now().Add(30 * time.Second); b.waiters.Load() != int32(i+1); time.Sleep(time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("waiter %d never waited", i)
			}
		}
	}
	for want := range 3 {
		b.Release()
		// A call that comes now, while others wait, does not take the
		// unit given back.
		if b.TryAcquire() {
			t.Fatalf("a newcomer took the unit given back while %d calls waited", 3-want)
		}
		select {
		case i := <-got:
			if i != want {
				t.Fatalf("waiter %d was served before waiter %d, which came first", i, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("waiter %d was not served after a release", want)
		}
	}
	b.Release()
	if !b.TryAcquire() || b.Busy() != 1 {
		t.Fatalf("after every waiter was served and released: busy %d", b.Busy())
	}
	b.Release()

	// Waiters that leave (deadline, cancel) leave no unit behind and take
	// none: the bound serves at full size afterwards.
	b2 := New(2)
	var wg sync.WaitGroup
	var held, most, timeouts atomic.Int32
	end := time.Now().Add(time.Second)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				if _, err := b2.Acquire(ctx, time.Now().Add(10*time.Millisecond), false, "p", "t", "k"); err != nil {
					timeouts.Add(1)
					continue
				}
				n := held.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(time.Millisecond)
				held.Add(-1)
				b2.Release()
			}
		}()
	}
	wg.Wait()
	if most.Load() > 2 || b2.Busy() != 0 || b2.waiters.Load() != 0 || len(b2.queue) != 0 {
		t.Fatalf("after the churn (%d waits left at their deadline): %d held at most, busy %d, waiters %d, queue %d",
			timeouts.Load(), most.Load(), b2.Busy(), b2.waiters.Load(), len(b2.queue))
	}
	if !b2.TryAcquire() || !b2.TryAcquire() || b2.TryAcquire() {
		t.Fatal("the bound does not serve at full size after the churn")
	}
}
