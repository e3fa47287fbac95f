package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestReserveDecodeBoundsTheSum: the large messages handled at once share
// limits.max_decode_bytes: one that does not fit waits for the others to
// be answered, and past the wait is refused Unavailable naming the key;
// a cost past the whole budget takes the whole budget (it does not wait
// forever); a cancelled caller stops waiting.
func TestReserveDecodeBoundsTheSum(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) { c.Limits.MaxDecodeBytes = 1000 })
	old := decodeWait
	decodeWait = 200 * time.Millisecond
	t.Cleanup(func() { decodeWait = old })
	ctx := context.Background()

	r1, err := te.h.reserveDecode(ctx, 100<<10, 600)
	if err != nil {
		t.Fatal(err)
	}
	_, err = te.h.reserveDecode(ctx, 100<<10, 600)
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "limits.max_decode_bytes") {
		t.Fatalf("a second 600 of 1000 bytes while the first holds its share: %v; want Unavailable naming limits.max_decode_bytes", err)
	}
	got := make(chan error, 1)
	go func() {
		r, err := te.h.reserveDecode(ctx, 100<<10, 5000) // past the budget: takes all of it
		if err == nil {
			r()
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	r1()
	r1() // twice is once
	if err := <-got; err != nil {
		t.Fatalf("after the first was answered: %v", err)
	}
	r3, err := te.h.reserveDecode(ctx, 100<<10, 1000)
	if err != nil {
		t.Fatalf("the whole budget once the others are answered: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := te.h.reserveDecode(cctx, 100<<10, 1); abi.CodeOf(err) != abi.Cancelled {
		t.Fatalf("a cancelled caller waiting: %v; want Cancelled", err)
	}
	r3()
}

func TestMaxDecodeBytesMustBePositive(t *testing.T) {
	_, err := config.Parse([]byte("limits:\n  max_decode_bytes: 0\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "limits.max_decode_bytes: must be positive") {
		t.Fatalf("max_decode_bytes: 0: %v", err)
	}
}
