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

// TestClockCapEveryVersion: the host's monotonic clock is defined
// once, at wasmtime's version (clockIface); a component may import any
// 0.2.x, older or newer. Every one of them gets the capped clock: a 3 s
// sleep under a 300 ms deadline ends with Timeout, not after 3 s. No
// defect.
func TestClockCapEveryVersion(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1, RealClock: true})
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

// TestClockPollableNoLeak: every subscribe goes through the proxy
// instance and its pollable crosses into the guest's table, where the
// guest drops it. 200 000 calls that each make and drop one pollable on
// one pooled instance must not grow the process (a pollable, or a handle
// of the proxy's table, kept per call would: ≥ 80 B a call is 16 MB).
// No defect (3 MB for 50 000 and for 400 000 calls alike).
func TestClockPollableNoLeak(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1, RealClock: true})
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

// TestSubscribeInstantCapped: subscribe-instant (absolute) is capped
// at now + the time left, without overflow: an instant in the past is
// ready at once, one 60 s away and the largest u64 instant end at the
// deadline with Timeout. No defect.
func TestSubscribeInstantCapped(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1, RealClock: true})
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

// TestLateResultMessage: a guest that sleeps past its deadline now
// wakes at the deadline (clock.go) and its result is dropped with
// Timeout; a cancelled caller's guest wakes at the deadline too and gets
// Cancelled. The messages said "a wait in WASI, such as a sleep, is not
// interrupted on wasmtime", which stopped being true when the clock was
// capped: they now say the sleep ended at the deadline, and that a cancel
// does not cut it short.
func TestLateResultMessage(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1, RealClock: true})
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

// keepHex (`jco parse`) keeps a clock pollable across calls: arm(ms)
// subscribes ms and keeps the pollable in a global, fire() blocks on it.
//
//	(component $C
//	  (import "wasi:io/poll@0.2.0" (instance $poll
//	    (export "pollable" (type (sub resource)))
//	    (export "[method]pollable.block" (func (param "self" (borrow 0))))))
//	  (alias export $poll "pollable" (type $pollable))
//	  (import "wasi:clocks/monotonic-clock@0.2.0" (instance $clock
//	    (alias outer $C $pollable (type $p))
//	    (export "pollable" (type $pe (eq $p)))
//	    (export "subscribe-duration" (func (param "when" u64) (result (own $pe))))))
//	  (core module $m
//	    (import "clock" "subscribe" (func $sub (param i64) (result i32)))
//	    (import "poll" "block" (func $block (param i32)))
//	    (global $p (mut i32) (i32.const 0))
//	    (func (export "arm") (param $ms i64) (result i64)
//	      (global.set $p (call $sub (i64.mul (local.get $ms) (i64.const 1000000))))
//	      (local.get $ms))
//	    (func (export "fire") (result i64)
//	      (call $block (global.get $p))
//	      (i64.const 1)))
//	  (core func $sub (canon lower (func $clock "subscribe-duration")))
//	  (core func $block (canon lower (func $poll "[method]pollable.block")))
//	  (core instance $ci (instantiate $m
//	    (with "clock" (instance (export "subscribe" (func $sub))))
//	    (with "poll" (instance (export "block" (func $block))))))
//	  (func $arm (param "ms" u64) (result u64) (canon lift (core func $ci "arm")))
//	  (func $fire (result u64) (canon lift (core func $ci "fire")))
//	  (export "arm" (func $arm))
//	  (export "fire" (func $fire)))
const keepHex = "0061736d0d0001000739014204040008706f6c6c61626c6503010168000140010473656c660101000400165b6d6574686f645d706f6c6c61626c652e626c6f636b01020a17010012776173693a696f2f706f6c6c40302e322e300500060d0103000008706f6c6c61626c65073b0142050203020101040008706f6c6c61626c65030000016901014001047768656e7700020400127375627363726962652d6475726174696f6e01030a26010021776173693a636c6f636b732f6d6f6e6f746f6e69632d636c6f636b40302e322e30050201a1010061736d0100000001130460017e017f60017f0060017e017e6000017e02200205636c6f636b09737562736372696265000004706f6c6c05626c6f636b000103030202030606017f0141000b070e020361726d0002046669726500030a1a020f00200042c0843d7e1000240020000b08002300100142010b0027046e616d650002016d010d0200037375620105626c6f636b020701020100026d73070401000170061701010001127375627363726962652d6475726174696f6e08050101000000061b01010000165b6d6574686f645d706f6c6c61626c652e626c6f636b08050101000100022b030101097375627363726962650000010105626c6f636b000100000205636c6f636b120004706f6c6c12010709014001026d73770077060901000001020361726d080601000002000307050140000077060a0100000102046669726508060100000300040b1202000361726d01020000046669726501030000630e636f6d706f6e656e742d6e616d6500020143010f00000200037375620105626c6f636b010600110100016d010700120102026369010d0102020361726d030466697265010c03010108706f6c6c61626c65010f05020004706f6c6c0105636c6f636b"

// TestPollableKeptAcrossCalls: a clock pollable ends at the deadline
// of the call that made it, so one made under a long deadline and kept
// by the guest made a later call with a short deadline wait to that
// long deadline on the pooled instance (native code the epoch callback
// cannot stop): fire() under 300 ms held the pool's one instance for
// 10 s. An idle instance holding a clock pollable that may end after a
// call's deadline is no longer given that call: it is closed and a new
// one serves it.
func TestPollableKeptAcrossCalls(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1, RealClock: true})
	b, err := hex.DecodeString(keepHex)
	if err != nil {
		t.Fatal(err)
	}
	p0, err := l.LoadBytes(context.Background(), abi.Source{Path: "keep.wasm"}, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p0.Close() })
	p := p0.(*Provider)
	if v, err := callP(p, &fakeEnv{}, "arm", map[string]any{"ms": int64(60_000)}, 10*time.Second); err != nil || v != int64(60_000) {
		t.Fatalf("arm(60000) = %v, %v", v, err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := callP(p, &fakeEnv{}, "fire", nil, 300*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("fire() under 300 ms on a fresh instance (no pollable armed) succeeded after %v", time.Since(start))
		}
	case <-time.After(4 * time.Second):
		t.Fatal("fire() under a 300 ms deadline still blocked 4 s later on a pollable armed under a 10 s deadline")
	}
	// A pollable that ends within the call's deadline is still waited on.
	if v, err := callP(p, &fakeEnv{}, "arm", map[string]any{"ms": int64(20)}, 5*time.Second); err != nil || v != int64(20) {
		t.Fatalf("arm(20) = %v, %v", v, err)
	}
	if v, err := callP(p, &fakeEnv{}, "fire", nil, 5*time.Second); err != nil || v != int64(1) {
		t.Errorf("fire() under 5 s after arm(20) = %v, %v; want 1", v, err)
	}
}
