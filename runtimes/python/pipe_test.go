package python

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

func newTestPipe(t *testing.T) (*pipeReader, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	pr, err := newPipeReader(r)
	if err != nil {
		t.Fatal(err)
	}
	return pr, w
}

// TestPipeReader: spinning or parked, data arrives whole; a park ends at the
// deadline or on cancellation with a *stopError; cancellation polls never
// cut a frame; a closed writer is EOF.
func TestPipeReader(t *testing.T) {
	for _, spin := range []time.Duration{0, 50 * time.Microsecond, 5 * time.Millisecond} {
		// A 50 µs spin for data written 1 ms later is a miss, unless the
		// reader lost its CPU for that millisecond before it began (a
		// loaded machine) and found the data at once: then try again.
		for try := 1; ; try++ {
			pr, w := newTestPipe(t)
			pr.Spin = spin
			if err := pr.Begin(context.Background(), time.Now().Add(10*time.Second)); err != nil {
				t.Fatal(err)
			}
			go func() {
				time.Sleep(time.Millisecond)
				_, _ = w.Write([]byte("hello"))
			}()
			buf := make([]byte, 16)
			n, err := pr.Read(buf)
			if err != nil || string(buf[:n]) != "hello" {
				t.Fatalf("spin %v: Read = %q, %v", spin, buf[:n], err)
			}
			missed := pr.Miss
			_ = w.Close()
			if n, err := pr.Read(buf); n != 0 || err != io.EOF {
				t.Fatalf("spin %v: after close: %d, %v; want EOF", spin, n, err)
			}
			if spin != 50*time.Microsecond || missed {
				break
			}
			if try == 20 {
				t.Errorf("spin %v: a 1 ms wait did not count as a miss in %d tries", spin, try)
				break
			}
		}
	}

	t.Run("deadline", func(t *testing.T) {
		pr, _ := newTestPipe(t)
		start := time.Now()
		if err := pr.Begin(context.Background(), start.Add(30*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		_, err := pr.Read(make([]byte, 4))
		var se *stopError
		if !errors.As(err, &se) || !errors.Is(se.Cause, context.DeadlineExceeded) {
			t.Fatalf("Read = %v, want the deadline", err)
		}
		if d := time.Since(start); d < 30*time.Millisecond || d > 2*time.Second {
			t.Errorf("stopped after %v for a 30ms deadline", d)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		pr, _ := newTestPipe(t)
		ctx, cancel := context.WithCancel(context.Background())
		if err := pr.Begin(ctx, time.Time{}); err != nil {
			t.Fatal(err)
		}
		// No data ever comes and there is no deadline: only the
		// cancellation poll ends the park (without it, Read waits
		// forever). The poll is every cancelPoll; the bound is measured
		// from the cancel itself and leaves room for a loaded machine
		// (-race, 2 busy cores: 10 ms + 5 polls was 139 ms once).
		var cancelled atomic.Int64
		time.AfterFunc(10*time.Millisecond, func() { cancelled.Store(time.Now().UnixNano()); cancel() })
		_, err := pr.Read(make([]byte, 4))
		var se *stopError
		if !errors.As(err, &se) || !errors.Is(se.Cause, context.Canceled) {
			t.Fatalf("Read = %v, want the cancellation", err)
		}
		if d := time.Since(time.Unix(0, cancelled.Load())); d > 100*cancelPoll {
			t.Errorf("cancellation noticed %v after it happened", d)
		}
	})

	t.Run("frame across polls", func(t *testing.T) {
		pr, w := newTestPipe(t)
		if err := pr.Begin(context.Background(), time.Now().Add(10*time.Second)); err != nil {
			t.Fatal(err)
		}
		payload := []byte(`{"v":1,"kind":"log","log":{"level":"info","message":"slow"}}`)
		frame := append([]byte{0, 0, 0, byte(len(payload))}, payload...)
		go func() {
			_, _ = w.Write(frame[:10])
			time.Sleep(3 * cancelPoll)
			_, _ = w.Write(frame[10:])
		}()
		got, err := abi.ReadFrame(bufio.NewReader(pr), abi.DefaultMaxFrame)
		if err != nil || string(got) != string(payload) {
			t.Fatalf("ReadFrame = %q, %v", got, err)
		}
	})
}
