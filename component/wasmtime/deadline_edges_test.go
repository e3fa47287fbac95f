//go:build wasmtime

package wasmtime

import (
	"context"
	"encoding/hex"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// sleepHex is a component (`jco parse` of the WAT below; the same bytes
// as package component's sleepHex) that sleeps the way wasi-libc's
// nanosleep and Go's time.Sleep do, on a pollable of the monotonic clock:
// sleep(ms) blocks once for ms, wait(ms) naps 1 ms at a time until the
// clock has moved ms on.
//
//	(component $C
//	  (import "wasi:io/poll@0.2.0" (instance $poll
//	    (export "pollable" (type (sub resource)))
//	    (export "[method]pollable.block" (func (param "self" (borrow 0))))))
//	  (alias export $poll "pollable" (type $pollable))
//	  (import "wasi:clocks/monotonic-clock@0.2.0" (instance $clock
//	    (alias outer $C $pollable (type $p))
//	    (export "pollable" (type $pe (eq $p)))
//	    (export "now" (func (result u64)))
//	    (export "subscribe-duration" (func (param "when" u64) (result (own $pe))))))
//	  (core module $m
//	    (import "clock" "now" (func $now (result i64)))
//	    (import "clock" "subscribe" (func $sub (param i64) (result i32)))
//	    (import "poll" "block" (func $block (param i32)))
//	    (import "poll" "drop" (func $drop (param i32)))
//	    (func $nap (param $ns i64)
//	      (local $p i32)
//	      (local.set $p (call $sub (local.get $ns)))
//	      (call $block (local.get $p))
//	      (call $drop (local.get $p)))
//	    (func (export "sleep") (param $ms i64) (result i64)
//	      (call $nap (i64.mul (local.get $ms) (i64.const 1000000)))
//	      (local.get $ms))
//	    (func (export "wait") (param $ms i64) (result i64)
//	      (local $end i64)
//	      (local.set $end (i64.add (call $now) (i64.mul (local.get $ms) (i64.const 1000000))))
//	      (loop $l
//	        (call $nap (i64.const 1000000))
//	        (br_if $l (i64.lt_u (call $now) (local.get $end))))
//	      (local.get $ms)))
//	  (core func $now (canon lower (func $clock "now")))
//	  (core func $sub (canon lower (func $clock "subscribe-duration")))
//	  (core func $block (canon lower (func $poll "[method]pollable.block")))
//	  (core func $drop (canon resource.drop $pollable))
//	  (core instance $ci (instantiate $m
//	    (with "clock" (instance (export "now" (func $now)) (export "subscribe" (func $sub))))
//	    (with "poll" (instance (export "block" (func $block)) (export "drop" (func $drop))))))
//	  (func $sleep (param "ms" u64) (result u64) (canon lift (core func $ci "sleep")))
//	  (func $wait (param "ms" u64) (result u64) (canon lift (core func $ci "wait")))
//	  (export "sleep" (func $sleep))
//	  (export "wait" (func $wait)))
const sleepHex = "0061736d0d0001000739014204040008706f6c6c61626c6503010168000140010473656c660101000400165b6d6574686f645d706f6c6c61626c652e626c6f636b01020a17010012776173693a696f2f706f6c6c40302e322e300500060d0103000008706f6c6c61626c6507480142070203020101040008706f6c6c61626c6503000001400000770400036e6f770102016901014001047768656e7700030400127375627363726962652d6475726174696f6e01040a26010021776173693a636c6f636b732f6d6f6e6f746f6e69632d636c6f636b40302e322e3005020189020061736d010000000117056000017e60017e017f60017f0060017e0060017e017e02380405636c6f636b036e6f77000005636c6f636b09737562736372696265000104706f6c6c05626c6f636b000204706f6c6c0464726f70000203040303040407100205736c6565700005047761697400060a45031201017f20001001210120011002200110030b0d00200042c0843d7e100420000b2201017e1000200042c0843d7e7c2101034042c0843d100410002001540d000b20000b004d046e616d650002016d011d0500036e6f7701037375620205626c6f636b030464726f7004036e6170021b03040200026e73010170050100026d73060200026d730103656e64030601060100016c060801010001036e6f7708050101000000061701010001127375627363726962652d6475726174696f6e08050101000100061b01010000165b6d6574686f645d706f6c6c61626c652e626c6f636b0807020100020003010238030102036e6f770000097375627363726962650001010205626c6f636b00020464726f70000300000205636c6f636b120004706f6c6c12010709014001026d73770077060b010000010205736c65657008060100000400030709014001026d73770077060a0100000102047761697408060100000500040b14020005736c65657001030000047761697401040000700e636f6d706f6e656e742d6e616d6500020143011a00000400036e6f7701037375620205626c6f636b030464726f70010600110100016d010700120102026369010f01020305736c656570040477616974010c03010108706f6c6c61626c65010f05020004706f6c6c0105636c6f636b"

func loadSleeper(t *testing.T, l *Loader) *Provider {
	t.Helper()
	b, err := hex.DecodeString(sleepHex)
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.LoadBytes(context.Background(), abi.Source{Path: "sleep.wasm"}, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p.(*Provider)
}

// sleepCall calls tool with ms under a 300 ms deadline; cancelAfter > 0
// cancels its context then.
func sleepCall(p *Provider, tool string, ms int64, cancelAfter time.Duration) (any, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if cancelAfter > 0 {
		time.AfterFunc(cancelAfter, cancel)
	}
	return p.Call(ctx, &abi.ToolCall{ID: "s", Tool: tool, Params: map[string]any{"ms": ms}, Deadline: time.Now().Add(300 * time.Millisecond)}, &fakeEnv{})
}

// TestSleepPastDeadline: wasmtime's own WASI 0.2 sleeps in native
// code (pollable.block of a monotonic-clock pollable), which epoch
// interruption cannot stop, so a guest that sleeps once past its deadline
// runs to the end of its sleep. The provider then answered the guest's
// result as a success, 300 ms after the call's deadline (or after its
// caller cancelled). It now answers Timeout (Cancelled) as it does for a
// guest the epoch callback stopped. A guest that naps in a loop is
// stopped at its deadline or its caller's cancel by the epoch callback;
// either way the next call is served. The provider does not claim
// abi.DeadlineKeeper: the host's watcher answers the caller, since a
// cancel does not cut a sleep short (docs/components.md). These tests
// give the guest the real clock (a virtual one's sleep takes no time:
// TestClocksAndRandomFollowGrantsOnWasmtime).
func TestSleepPastDeadline(t *testing.T) {
	l := newLoader(t, Options{RealClock: true})
	p := loadSleeper(t, l)
	if k, ok := abi.Provider(p).(abi.DeadlineKeeper); ok && k.KeepsDeadlines() {
		t.Error("the wasmtime component provider claims to keep deadlines, but a sleep in wasmtime's WASI is not interrupted")
	}
	for _, tc := range []struct {
		tool   string
		ms     int64
		cancel time.Duration
		want   abi.ErrorCode
	}{
		{"sleep", 600, 0, abi.Timeout},
		{"sleep", 600, 100 * time.Millisecond, abi.Cancelled},
		{"wait", 60_000, 0, abi.Timeout},
		{"wait", 60_000, 100 * time.Millisecond, abi.Cancelled},
	} {
		v, err := sleepCall(p, tc.tool, tc.ms, tc.cancel)
		if abi.CodeOf(err) != tc.want {
			t.Errorf("%s(%d) with a 300 ms deadline, cancelled after %v: %v, %v; want %s", tc.tool, tc.ms, tc.cancel, v, err, tc.want)
		}
		if v, err := callP(p, &fakeEnv{}, "sleep", map[string]any{"ms": int64(1)}, 5*time.Second); err != nil || v != int64(1) {
			t.Errorf("after %s(%d): sleep(1) = %v (%T), %v; want 1", tc.tool, tc.ms, v, v, err)
		}
	}
}

// TestSleepEndsAtDeadline: a guest sleeping past its deadline held
// its instance (and with it a pool slot, and Loader.Close) to the end of
// its sleep, 60 s here, whatever the call's deadline: wasmtime's WASI
// waits in native code. The host now defines wasi:clocks/monotonic-clock
// over wasmtime's and ends every clock pollable at the deadline (clock.go),
// so the call ends at its deadline, the one instance of a pool of one
// serves the next call, and Close does not wait.
func TestSleepEndsAtDeadline(t *testing.T) {
	l := NewLoader(Options{PoolSize: 1, RealClock: true})
	p := loadSleeper(t, l)
	for _, cancelAfter := range []time.Duration{0, 100 * time.Millisecond} {
		done := make(chan error, 1)
		go func() {
			_, err := sleepCall(p, "sleep", 60_000, cancelAfter)
			done <- err
		}()
		select {
		case err := <-done:
			want := abi.Timeout
			if cancelAfter > 0 {
				want = abi.Cancelled
			}
			if abi.CodeOf(err) != want {
				t.Errorf("sleep(60000) with a 300 ms deadline, cancelled after %v: %v, want %s", cancelAfter, err, want)
			}
		case <-time.After(4 * time.Second):
			t.Fatalf("sleep(60000) with a 300 ms deadline, cancelled after %v: still sleeping 4 s later", cancelAfter)
		}
		if v, err := callP(p, &fakeEnv{}, "sleep", map[string]any{"ms": int64(1)}, time.Second); err != nil || v != int64(1) {
			t.Errorf("the next call on a pool of one: sleep(1) = %v, %v; want 1", v, err)
		}
	}
	// A sleep within the deadline still sleeps.
	start := time.Now()
	if v, err := callP(p, &fakeEnv{}, "sleep", map[string]any{"ms": int64(50)}, 5*time.Second); err != nil || v != int64(50) || time.Since(start) < 50*time.Millisecond {
		t.Errorf("sleep(50) = %v, %v after %v; want 50 after 50 ms", v, err, time.Since(start))
	}
	_ = p.Close()
	if err := l.Close(); err != nil {
		t.Errorf("Loader.Close: %v", err)
	}
}
