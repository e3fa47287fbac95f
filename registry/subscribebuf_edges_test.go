package registry

import (
	"math"
	"testing"
)

// TestSubscribeHugeBuffer: Subscribe(math.MaxInt) panicked in make
// ("makechan: size out of range"), and a buffer of millions took its
// memory up front. The buffer is bounded by MaxSubscribeBuffer.
func TestSubscribeHugeBuffer(t *testing.T) {
	r := New()
	for _, buf := range []int{math.MaxInt, 1 << 40, -5} {
		ch, cancel := r.Subscribe(buf)
		if c := cap(ch); c < 1 || c > MaxSubscribeBuffer {
			t.Errorf("Subscribe(%d): buffer %d, want 1..%d", buf, c, MaxSubscribeBuffer)
		}
		cancel()
	}
}
