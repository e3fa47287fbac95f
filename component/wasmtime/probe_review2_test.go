//go:build wasmtime

package wasmtime

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// sleeperAt is sleepHex importing wasi:clocks/monotonic-clock and
// wasi:io/poll at version v (sections re-sized).
func sleeperAt(t *testing.T, l *Loader, v string) *Provider {
	t.Helper()
	b, err := hex.DecodeString(sleepHex)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"wasi:clocks/monotonic-clock@", "wasi:io/poll@"} {
		b = patchNames(b, n+"0.2.0", n+v)
	}
	p, err := l.LoadBytes(context.Background(), abi.Source{Path: "sleep-" + v + ".wasm"}, b)
	if err != nil {
		t.Fatalf("load with WASI %s: %v", v, err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p.(*Provider)
}

// patchNames replaces the name from by to (each with its length byte) in
// the top-level sections of component b other than core modules, and
// re-sizes them.
func patchNames(b []byte, from, to string) []byte {
	old, repl := append([]byte{byte(len(from))}, from...), append([]byte{byte(len(to))}, to...)
	out := append([]byte(nil), b[:8]...)
	for i := 8; i < len(b); {
		id := b[i]
		i++
		n, w := binary.Uvarint(b[i:])
		body := b[i+w : i+w+int(n)]
		i += w + int(n)
		if id != 1 { // not inside the core module
			body = bytes.ReplaceAll(body, old, repl)
		}
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out
}

// TestProbeClockCapEveryVersion: the host's monotonic clock is defined
// once, at wasmtime's version (clockIface); a component may import any
// 0.2.x, older or newer. Every one of them gets the capped clock: a 3 s
// sleep under a 300 ms deadline ends with Timeout, not after 3 s. No
// defect.
func TestProbeClockCapEveryVersion(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1})
	for _, v := range []string{"0.2.0", "0.2.1", "0.2.3", "0.2.5", "0.2.6", "0.2.7", "0.2.8", "0.2.9", "0.2.10", "0.2.12"} {
		p := sleeperAt(t, l, v)
		start := time.Now()
		done := make(chan error, 1)
		go func() { _, err := sleepCall(p, "sleep", 3_000, 0); done <- err }()
		select {
		case err := <-done:
			if abi.CodeOf(err) != abi.Timeout {
				t.Errorf("WASI %s: sleep(3000) under a 300 ms deadline: %v after %v; want Timeout", v, err, time.Since(start))
			}
		case <-time.After(2 * time.Second):
			t.Errorf("%s: sleep(3000) under 300 ms still running 2 s later", v)
			<-done
		}
	}
}

// TestProbeClockPollableNoLeak: every subscribe goes through the proxy
// instance and its pollable crosses into the guest's table, where the
// guest drops it. 200 000 calls that each make and drop one pollable on
// one pooled instance must not grow the process (a pollable, or a handle
// of the proxy's table, kept per call would: ≥ 80 B a call is 16 MB).
// No defect (3 MB for 50 000 and for 400 000 calls alike).
func TestProbeClockPollableNoLeak(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1})
	p := loadSleeper(t, l)
	for i := 0; i < 2000; i++ {
		callP(p, &fakeEnv{}, "sleep", map[string]any{"ms": int64(0)}, 5*time.Second)
	}
	r0 := probeRSS()
	for i := 0; i < 200_000; i++ {
		if _, err := callP(p, &fakeEnv{}, "sleep", map[string]any{"ms": int64(0)}, 5*time.Second); err != nil {
			t.Fatal(i, err)
		}
	}
	if r := probeRSS(); r-r0 > 16<<10 {
		t.Errorf("200 000 sleep(0) calls grew RSS from %d kB to %d kB", r0, r)
	}
}

// instantHex is sleepHex with subscribe-duration replaced by
// subscribe-instant: sleep(ms) blocks on the instant ms·10⁶ ns of the
// monotonic clock.
func instantHex(t *testing.T) []byte {
	t.Helper()
	b, err := hex.DecodeString(sleepHex)
	if err != nil {
		t.Fatal(err)
	}
	return patchNames(b, "subscribe-duration", "subscribe-instant")
}

// TestProbeSubscribeInstantCapped: subscribe-instant (absolute) is capped
// at now + the time left, without overflow: an instant in the past is
// ready at once, one 60 s away and the largest u64 instant end at the
// deadline with Timeout. No defect.
func TestProbeSubscribeInstantCapped(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1})
	p0, err := l.LoadBytes(context.Background(), abi.Source{Path: "instant.wasm"}, instantHex(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p0.Close()
	p := p0.(*Provider)
	for _, ms := range []int64{0, 60_000, 18446744073709} {
		start := time.Now()
		done := make(chan error, 1)
		go func() { _, err := sleepCall(p, "sleep", ms, 0); done <- err }()
		select {
		case err := <-done:
			want := abi.Timeout
			if ms == 0 {
				want = ""
			}
			if abi.CodeOf(err) != want {
				t.Errorf("sleep until instant %d ms under a 300 ms deadline: %v after %v; want %q", ms, err, time.Since(start), want)
			}
		case <-time.After(3 * time.Second):
			t.Errorf("%d: still running 3 s later", ms)
			<-done
		}
	}
}

// TestProbeLateResultMessage: a guest that sleeps past its deadline now
// wakes at the deadline (clock.go) and its result is dropped with
// Timeout; a cancelled caller's guest wakes at the deadline too and gets
// Cancelled. The messages said "a wait in WASI, such as a sleep, is not
// interrupted on wasmtime", which stopped being true when the clock was
// capped: they now say the sleep ended at the deadline, and that a cancel
// does not cut it short.
func TestProbeLateResultMessage(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1})
	p := loadSleeper(t, l)
	for _, tc := range []struct {
		cancel time.Duration
		want   abi.ErrorCode
		says   string
	}{
		{0, abi.Timeout, "ends at the deadline"},
		{100 * time.Millisecond, abi.Cancelled, "not cut short by a cancel"},
	} {
		_, err := sleepCall(p, "sleep", 60_000, tc.cancel)
		if abi.CodeOf(err) != tc.want || strings.Contains(err.Error(), "not interrupted") || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "tool sleep") {
			t.Errorf("sleep(60000) under a 300 ms deadline, cancelled after %v: %v; want %s saying %q", tc.cancel, err, tc.want, tc.says)
		}
	}
}
