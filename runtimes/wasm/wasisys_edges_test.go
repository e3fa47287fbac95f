package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// The WASI functions the host defines itself on wasmtime (clock_time_get,
// clock_res_get, random_get, poll_oneoff: wasmtime_wasi.go) are there to
// answer as wazero's do, so that the same guest sees the same answers on
// both engines. These tests run a guest on every engine compiled in and
// compare each engine's numbers with wazero's (edgeEngines[0]).

// wasiNumbersWAT is a guest whose aios_call runs body and returns the
// numbers body passed to $put, as {"value":[...]}. imports are WASI
// function imports; memory 200..1000 is scratch for body.
func wasiNumbersWAT(imports, body string) string {
	d, reg := watData(1024, edgeReg)
	return fmt.Sprintf(`(module
  %s
  (memory (export "memory") 3)
  (global $heap (mut i32) (i32.const 8192))
  (global $out (mut i32) (i32.const 0))
  %s
  (func (export "aios_alloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.and (i32.add (i32.add (local.get $p) (local.get $n)) (i32.const 7)) (i32.const -8)))
    (local.get $p))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func $ch (param $c i32)
    (i32.store8 (global.get $out) (local.get $c))
    (global.set $out (i32.add (global.get $out) (i32.const 1))))
  ;; $put appends v in decimal and a comma.
  (func $put (param $v i64) (local $len i32) (local $i i32)
    (if (i64.lt_s (local.get $v) (i64.const 0)) (then
      (call $ch (i32.const 45))
      (local.set $v (i64.sub (i64.const 0) (local.get $v)))))
    (loop $l
      (i32.store8 (i32.add (i32.const 7000) (local.get $len))
        (i32.wrap_i64 (i64.add (i64.const 48) (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $len (i32.add (local.get $len) (i32.const 1)))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $l (i64.ne (local.get $v) (i64.const 0))))
    (local.set $i (local.get $len))
    (loop $m
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (call $ch (i32.load8_u (i32.add (i32.const 7000) (local.get $i))))
      (br_if $m (i32.gt_s (local.get $i) (i32.const 0))))
    (call $ch (i32.const 44)))
  (data (i32.const 100000) "{\"value\":[")
  (func (export "aios_call") (param $p i32) (param $n i32) (result i64)
    (global.set $heap (i32.const 8192))
    (global.set $out (i32.const 100010))
    %s
    (call $put (i64.const 0))
    (global.set $out (i32.sub (global.get $out) (i32.const 1)))
    (call $ch (i32.const 93)) (call $ch (i32.const 125))
    (i64.or (i64.const 0x000186a000000000) (i64.extend_i32_u (i32.sub (global.get $out) (i32.const 100000)))))
)`, imports, d, reg, body)
}

// wasiNumbers runs body once on each engine and returns each engine's
// numbers (the trailing 0 the guest adds left off).
func wasiNumbers(t *testing.T, cfg Config, imports, body string) map[string][]int64 {
	t.Helper()
	path := buildWAT(t, wasiNumbersWAT(imports, body))
	out := map[string][]int64{}
	for _, e := range edgeEngines {
		p, err := e.load(t, cfg, abi.Source{Path: path})
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		v, err := p.Call(ctx, &abi.ToolCall{Tool: "t"}, newFakeEnv(p, 3))
		cancel()
		p.Close()
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			t.Fatalf("%s: result %#v, want a list of numbers", e.name, v)
		}
		var nums []int64
		for _, x := range list[:len(list)-1] {
			n, ok := wasiNumber(x)
			if !ok {
				t.Fatalf("%s: result %#v holds %#v, not an integer", e.name, v, x)
			}
			nums = append(nums, n)
		}
		out[e.name] = nums
	}
	return out
}

func wasiNumber(x any) (int64, bool) {
	switch n := x.(type) {
	case int64:
		return n, true
	case uint64:
		return int64(n), true
	case float64:
		return int64(n), float64(int64(n)) == n
	case json.Number:
		v, err := n.Int64()
		return v, err == nil
	}
	return 0, false
}

// sameAsWazero fails t for each engine whose numbers are not wazero's.
func sameAsWazero(t *testing.T, what string, got map[string][]int64) {
	t.Helper()
	ref := got[edgeEngines[0].name]
	for _, e := range edgeEngines[1:] {
		if !slices.Equal(got[e.name], ref) {
			t.Errorf("%s: %s %v, %s %v: want the same", what, e.name, got[e.name], edgeEngines[0].name, ref)
		}
	}
}

const wasiClockResImport = `(import "wasi_snapshot_preview1" "clock_res_get" (func $clock_res_get (param i32 i32) (result i32)))`

// clock_res_get said 1 µs for the monotonic clock on wasmtime, where
// wazero says 1 ns (its virtual clock's and the real one's resolution),
// the fake or the real clock alike.
func TestClockResolutionSameOnBothEngines(t *testing.T) {
	body := `(i64.store (i32.const 200) (i64.const -1))
    (call $put (i64.extend_i32_u (call $clock_res_get (i32.const 0) (i32.const 200))))
    (call $put (i64.load (i32.const 200)))
    (i64.store (i32.const 200) (i64.const -1))
    (call $put (i64.extend_i32_u (call $clock_res_get (i32.const 1) (i32.const 200))))
    (call $put (i64.load (i32.const 200)))`
	for _, clock := range []string{"fake", "real"} {
		got := wasiNumbers(t, Config{PoolSize: 1, Clock: clock}, wasiClockResImport, body)
		sameAsWazero(t, "clock "+clock+": clock_res_get(realtime), clock_res_get(monotonic)", got)
	}
}

const wasiPollImport = `(import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))`

// pollSub is WAT storing subscription i (48 bytes from 400) with
// userdata i+7, tag, and the u32 at its offset 16 (a clock id or an fd);
// a clock's timeout (ns) and flags follow at 24 and 40.
func pollSub(i int, tag byte, idOrFd int32, timeout int64, flags uint16) string {
	at := 400 + 48*i
	return fmt.Sprintf(`(i64.store (i32.const %d) (i64.const %d))
    (i32.store8 (i32.const %d) (i32.const %d))
    (i32.store (i32.const %d) (i32.const %d))
    (i64.store (i32.const %d) (i64.const %d))
    (i32.store16 (i32.const %d) (i32.const %d))
    `, at, i+7, at+8, tag, at+16, idOrFd, at+24, timeout, at+40, flags)
}

// pollBody polls n subscriptions (events from 700) and puts the errno.
func pollBody(n int) string {
	return fmt.Sprintf(`(call $put (i64.extend_i32_u (call $poll_oneoff (i32.const 400) (i32.const 700) (i32.const %d) (i32.const 200))))`, n)
}

// A clock subscription with the abstime flag was served on wasmtime (a
// sleep to that time); wazero answers ENOTSUP for the whole poll_oneoff, so
// a guest that worked on wasmtime failed on wazero, the default engine.
func TestPollAbsoluteTimeSameOnBothEngines(t *testing.T) {
	for _, clock := range []string{"fake", "real"} {
		for _, tc := range []struct {
			name, subs string
			n          int
		}{
			{"abstime alone", pollSub(0, 0, 1, 1000, 1), 1},
			{"abstime after a relative sleep", pollSub(0, 0, 1, 1000, 0) + pollSub(1, 0, 0, 1000, 1), 2},
		} {
			got := wasiNumbers(t, Config{PoolSize: 1, Clock: clock}, wasiPollImport, tc.subs+pollBody(tc.n))
			sameAsWazero(t, "clock "+clock+": "+tc.name+": poll_oneoff's errno", got)
		}
	}
}

const wasiClockImport = `(import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))`

// A poll_oneoff without a clock subscription whose fd subscriptions are
// all answered at once (an fd_write one on stdout, an fd_read one on an fd
// not open: poll() of stdout for POLLOUT, of a closed fd) returns at once
// on wasmtime. On wazero it slept for ever: wazero's poll_oneoff sleeps
// its "no timeout", math.MaxInt64 ns, then — with a real clock to the
// call's deadline (and returned then: the call took its whole deadline),
// with the fake one the virtual monotonic clock jumped 292 years and
// wrapped negative.
func TestPollWithoutClockReturnsAtOnce(t *testing.T) {
	const deadline = 4 * time.Second
	// The monotonic clock before and after; poll_oneoff's errno and the
	// event's.
	body := `(drop (call $clock_time_get (i32.const 1) (i64.const 0) (i32.const 300)))
    (call $put (i64.load (i32.const 300)))
    ` + pollBody(1) + `
    (call $put (i64.load16_u (i32.const 708)))
    (drop (call $clock_time_get (i32.const 1) (i64.const 0) (i32.const 300)))
    (call $put (i64.load (i32.const 300)))`
	for _, clock := range []string{"fake", "real"} {
		for _, tc := range []struct {
			name string
			sub  string
		}{
			{"fd_write on stdout", pollSub(0, 2, 1, 0, 0)},
			{"fd_read on an fd not open", pollSub(0, 1, 5, 0, 0)},
		} {
			path := buildWAT(t, wasiNumbersWAT(wasiPollImport+wasiClockImport, tc.sub+body))
			for _, e := range edgeEngines {
				p, err := e.load(t, Config{PoolSize: 1, Clock: clock}, abi.Source{Path: path})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				v, err := p.Call(ctx, &abi.ToolCall{Tool: "t"}, newFakeEnv(p, 3))
				took := time.Since(start)
				cancel()
				p.Close()
				if err != nil {
					t.Errorf("%s, clock %s, %s: %v", e.name, clock, tc.name, err)
					continue
				}
				if took > deadline/2 {
					t.Errorf("%s, clock %s, %s: the call took %v of its %v deadline: poll_oneoff slept", e.name, clock, tc.name, took.Round(time.Millisecond), deadline)
				}
				list, _ := v.([]any)
				if len(list) != 5 {
					t.Fatalf("%s: result %#v", e.name, v)
				}
				before, _ := wasiNumber(list[0])
				after, _ := wasiNumber(list[3])
				if d := after - before; d < 0 || d > int64(deadline) {
					t.Errorf("%s, clock %s, %s: the monotonic clock moved %d ns across poll_oneoff (from %d to %d)", e.name, clock, tc.name, d, before, after)
				}
			}
		}
	}
}

// poll_oneoff's fd subscriptions are answered as on wazero: an fd_read on
// stdin (empty: reading it returns at once, at its end), stdout or stderr
// is ready (errno 0), after the other events; an fd_write on them is
// ENOTSUP; an fd not open is EBADF, and a negative one EBADF for the whole
// call. On wasmtime every fd event said ENOTSUP, so poll() of stdin said
// POLLERR there and POLLIN on wazero.
func TestPollFdEventsSameOnBothEngines(t *testing.T) {
	// poll_oneoff's errno, nevents, and each event's userdata, errno and
	// type.
	events := func(n int) string {
		s := `(call $put (i64.load32_u (i32.const 200)))`
		for i := range n {
			at := 700 + 32*i
			s += fmt.Sprintf(` (call $put (i64.load (i32.const %d))) (call $put (i64.load16_u (i32.const %d))) (call $put (i64.load8_u (i32.const %d)))`, at, at+8, at+10)
		}
		return s
	}
	for _, tc := range []struct {
		name, subs string
		n          int
	}{
		{"fd_read stdin", pollSub(0, 1, 0, 0, 0), 1},
		{"fd_read stdout", pollSub(0, 1, 1, 0, 0), 1},
		{"fd_read stderr", pollSub(0, 1, 2, 0, 0), 1},
		{"fd_read fd 5", pollSub(0, 1, 5, 0, 0), 1},
		{"fd_read fd -1", pollSub(0, 1, -1, 0, 0), 1},
		{"fd_write stdin", pollSub(0, 2, 0, 0, 0), 1},
		{"fd_write stdout", pollSub(0, 2, 1, 0, 0), 1},
		{"fd_write fd 5", pollSub(0, 2, 5, 0, 0), 1},
		{"fd_write fd -1", pollSub(0, 2, -1, 0, 0), 1},
		{"fd_read stdin, clock", pollSub(0, 1, 0, 0, 0) + pollSub(1, 0, 1, 1000, 0), 2},
		{"clock, fd_read stdin", pollSub(0, 0, 1, 1000, 0) + pollSub(1, 1, 0, 0, 0), 2},
		{"fd_read stdin, fd_read fd 5, fd_write stdout", pollSub(0, 1, 0, 0, 0) + pollSub(1, 1, 5, 0, 0) + pollSub(2, 2, 1, 0, 0), 3},
	} {
		got := wasiNumbers(t, Config{PoolSize: 1}, wasiPollImport, tc.subs+pollBody(tc.n)+events(tc.n))
		sameAsWazero(t, tc.name+": errno, nevents, events (userdata, errno, type)", got)
	}
}

// Without the Clock grant each instance's wall clock starts at
// 2022-01-01 (wazero's fake clock is one per instance, as its fake random
// source is: TestFakeRandomSameOnBothEngines). On wasmtime the provider's
// instances shared one, so a fresh instance read on from where the last
// one had left it, and the same module read other times on the two
// engines.
func TestFakeWallClockPerInstanceOnBothEngines(t *testing.T) {
	// The first call of an instance reads the wall clock twice, the next
	// one traps (the instance is replaced).
	body := `(if (global.get $calls) (then unreachable))
    (global.set $calls (i32.const 1))
    (drop (call $clock_time_get (i32.const 0) (i64.const 0) (i32.const 300)))
    (call $put (i64.load (i32.const 300)))
    (drop (call $clock_time_get (i32.const 0) (i64.const 0) (i32.const 300)))
    (call $put (i64.load (i32.const 300)))`
	src := wasiNumbersWAT(wasiClockImport+`(global $calls (mut i32) (i32.const 0))`, body)
	var first []int64
	for _, e := range edgeEngines {
		p := edgeLoad(t, e, Config{PoolSize: 1}, src)
		env := newFakeEnv(p, 3)
		read := func() []int64 {
			t.Helper()
			v, err := call(p, env, "t", map[string]any{}, 10*time.Second)
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			var nums []int64
			list, _ := v.([]any)
			for _, x := range list {
				n, _ := wasiNumber(x)
				nums = append(nums, n)
			}
			return nums
		}
		v1 := read()
		if _, err := call(p, env, "t", map[string]any{}, 10*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
			t.Fatalf("%s: second call: %v, want the guest's trap", e.name, err)
		}
		v3 := read()
		if !slices.Equal(v1, v3) {
			t.Errorf("%s: a fresh instance read the wall clock %v, the first one %v: want the same", e.name, v3, v1)
		}
		if first == nil {
			first = v1
		} else if !slices.Equal(v1, first) {
			t.Errorf("%s read the wall clock %v, %s %v: want the same", e.name, v1, edgeEngines[0].name, first)
		}
	}
}
