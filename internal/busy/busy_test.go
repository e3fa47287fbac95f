package busy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

func TestBound(t *testing.T) {
	b := New(2)
	ctx := context.Background()
	for range 2 {
		if over, err := b.Acquire(ctx, time.Time{}, false, "p", "t", "k"); over || err != nil {
			t.Fatalf("acquire under the bound: %v %v", over, err)
		}
	}
	if b.TryAcquire() {
		t.Fatal("TryAcquire past the bound succeeded")
	}
	// Reentrant: runs outside the bound.
	if over, err := b.Acquire(ctx, time.Time{}, true, "p", "t", "k"); !over || err != nil {
		t.Fatalf("reentrant acquire at the bound: %v %v, want overflow", over, err)
	}
	// Deadline.
	_, err := b.Acquire(ctx, time.Now().Add(30*time.Millisecond), false, "org.x", "echo", "runtimes.wasm.pool_size")
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "all 2 instances of org.x were busy until the deadline of echo (runtimes.wasm.pool_size)") {
		t.Fatalf("past the deadline: %v", err)
	}
	// Cancellation.
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := b.Acquire(cctx, time.Time{}, false, "p", "t", "k"); abi.CodeOf(err) != abi.Cancelled {
		t.Fatalf("cancelled wait: %v", err)
	}
	// A release wakes a waiter.
	done := make(chan error, 1)
	go func() {
		_, err := b.Acquire(ctx, time.Now().Add(5*time.Second), false, "p", "t", "k")
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	b.Release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("a release did not wake the waiting acquire")
	}
	if n := b.Busy(); n != 2 {
		t.Fatalf("busy = %d, want 2", n)
	}
	if New(0).Size() != 1 {
		t.Fatal("New(0) is not a bound of 1")
	}
}

// TestCloseTellsWaiters: the calls waiting for a unit of a closed
// provider's bound are told it is closed at once (Close's error), and
// later calls that would wait too; a unit handed back meanwhile is not
// lost.
func TestCloseTellsWaiters(t *testing.T) {
	b := New(1)
	if !b.TryAcquire() {
		t.Fatal("no unit")
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := b.Acquire(context.Background(), time.Now().Add(time.Minute), false, "p", "t", "k")
			errs <- err
		}()
	}
	for deadline := time.Now().Add(10 * time.Second); b.waiters.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the calls did not wait")
		}
	}
	b.Close(abi.Errorf(abi.Unavailable, "provider p is closed"))
	for range 2 {
		select {
		case err := <-errs:
			if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "provider p is closed") {
				t.Fatalf("waiting call: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a waiting call was not told the provider is closed")
		}
	}
	if _, err := b.Acquire(context.Background(), time.Now().Add(time.Minute), false, "p", "t", "k"); abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("a call after Close: %v", err)
	}
	b.Release()
	if b.Busy() != 0 || len(b.queue) != 0 || b.waiters.Load() != 0 {
		t.Fatalf("after Close and Release: busy %d, queue %d, waiters %d", b.Busy(), len(b.queue), b.waiters.Load())
	}
}
