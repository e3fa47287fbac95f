package hostop

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSlotsAcquire: MaxInFlight slots, then a wait that ends with a
// release, the deadline, the context or stop; nil Slots bound nothing.
func TestSlotsAcquire(t *testing.T) {
	s := NewSlots()
	ctx := context.Background()
	for range MaxInFlight {
		if err := s.Acquire(ctx, time.Time{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Acquire(ctx, time.Now().Add(20*time.Millisecond), nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("full, deadline: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Acquire(cctx, time.Time{}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("full, cancelled: %v", err)
	}
	stop := make(chan struct{})
	close(stop)
	if err := s.Acquire(ctx, time.Time{}, stop); !errors.Is(err, context.Canceled) {
		t.Fatalf("full, stopped: %v", err)
	}
	go func() { time.Sleep(10 * time.Millisecond); s.Release() }()
	if err := s.Acquire(ctx, time.Now().Add(10*time.Second), nil); err != nil {
		t.Fatalf("full, then a release: %v", err)
	}
	var none Slots
	for range 2 * MaxInFlight {
		if err := none.Acquire(ctx, time.Time{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	none.Release()
}
