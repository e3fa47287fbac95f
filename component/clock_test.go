package component

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/wit"
)

// A component's WASI clocks and random source are the host's only when it
// asks for Clock / Random and is granted them (or the config gives them to
// every provider), as for core modules; otherwise they are fake: the wall
// clock advances 1 ms per reading from a fixed epoch, the monotonic clock
// is virtual (1 ns per reading, and a wait on it moves it to its end), and
// the random bytes are the same on every fresh instance.
func TestClockAndRandomFollowGrants(t *testing.T) {
	sample(t, "conformance")                                                               // fails the test when it is not built
	path := filepath.Join(testutil.RepoRoot(t), "build", "components", "conformance.wasm") // asks for CallTool(*) and Clock
	clockGrant, err := abi.ParseGrants([]string{"Clock"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		opts      Options
		src       abi.Source
		realClock bool
	}{
		{"not granted", Options{}, abi.Source{Path: path}, false},
		{"granted", Options{}, abi.Source{Path: path, Grants: clockGrant}, true},
		{"config", Options{RealClock: true}, abi.Source{Path: path}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.CacheDir = testCacheDir()
			lp, err := NewLoader(tc.opts).Load(context.Background(), tc.src)
			if err != nil {
				t.Fatal(err)
			}
			p := lp.(*Provider)
			defer p.Close()
			if p.realClock != tc.realClock || p.realRandom {
				t.Fatalf("realClock %v realRandom %v, want %v false", p.realClock, p.realRandom, tc.realClock)
			}
			// sleep busy-waits on the monotonic clock: with the real one it
			// runs into the deadline, and with the virtual one too (5 s are
			// 5e9 readings; with the 1 ms step it had, 5000 readings ended
			// it at once, and a Go guest's collector stalled:
			// TestGoComponentHeapCollected).
			start := time.Now()
			_, err = p.Call(context.Background(), &abi.ToolCall{ID: "t", Tool: "sleep", Params: map[string]any{"ms": int64(5000)},
				Deadline: time.Now().Add(time.Second)}, &fakeEnv{})
			if abi.CodeOf(err) != abi.Timeout {
				t.Fatalf("sleep of 5 s, clock real %v: %v after %v, want Timeout", tc.realClock, err, time.Since(start))
			}
		})
	}
}

// The fake and real WASI clock and random functions themselves.
func TestFakeClocksAndRandom(t *testing.T) {
	call := func(inst *instance, fn string) wit.Value {
		t.Helper()
		v, err := wasiFuncs[fn](nil, inst, []wit.Value{uint64(16)})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	fake := func() *instance { return &instance{p: &Provider{}} }
	a, b := fake(), fake()
	if w := call(a, "wasi:clocks/wall-clock#now").(wit.Record); w[0] != uint64(1640995200) || w[1] != uint64(time.Millisecond) {
		t.Errorf("first fake wall-clock reading %v, want 2022-01-01T00:00:00.001Z", w)
	}
	if w := call(a, "wasi:clocks/wall-clock#now").(wit.Record); w[1] != uint64(2*time.Millisecond) {
		t.Errorf("second fake wall-clock reading %v, want 1 ms later", w)
	}
	if m1, m2 := call(a, "wasi:clocks/monotonic-clock#now").(uint64), call(a, "wasi:clocks/monotonic-clock#now").(uint64); m2-m1 != 1 {
		t.Errorf("virtual monotonic readings %d, %d: want 1 ns apart", m1, m2)
	}
	// A wait on a clock pollable moves the virtual clock to its end: a
	// sleep takes no time, and the guest's timers fire.
	m0 := call(a, "wasi:clocks/monotonic-clock#now").(uint64)
	for _, wait := range []string{"wasi:io/poll#[method]pollable.block", "wasi:io/poll#[method]pollable.ready", "wasi:io/poll#poll"} {
		h, err := wasiFuncs["wasi:clocks/monotonic-clock#subscribe-duration"](nil, a, []wit.Value{uint64(5 * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		arg := h
		if wait == "wasi:io/poll#poll" {
			arg = []wit.Value{h}
		}
		if _, err := wasiFuncs[wait](nil, a, []wit.Value{arg}); err != nil {
			t.Fatal(err)
		}
		if m := call(a, "wasi:clocks/monotonic-clock#now").(uint64); m < m0+uint64(5*time.Second) || m > m0+uint64(5*time.Second)+10 {
			t.Errorf("after %s of a 5 s subscription at %d the virtual clock reads %d, want 5 s later", wait, m0, m)
		}
		m0 = call(a, "wasi:clocks/monotonic-clock#now").(uint64)
	}
	h, _ := wasiFuncs["wasi:clocks/monotonic-clock#subscribe-instant"](nil, a, []wit.Value{m0 + 1000})
	_, _ = wasiFuncs["wasi:io/poll#[method]pollable.block"](nil, a, []wit.Value{h})
	if m := call(a, "wasi:clocks/monotonic-clock#now").(uint64); m != m0+1001 {
		t.Errorf("after blocking on the instant %d the virtual clock reads %d, want %d", m0+1000, m, m0+1001)
	}
	ra, rb := call(a, "wasi:random/random#get-random-bytes").([]byte), call(b, "wasi:random/random#get-random-bytes").([]byte)
	if !bytes.Equal(ra, rb) || bytes.Equal(ra, make([]byte, 16)) {
		t.Errorf("fake random bytes of two fresh instances %x, %x: want the same, not zeros", ra, rb)
	}
	if call(a, "wasi:random/random#get-random-u64") == call(a, "wasi:random/random#get-random-u64") {
		t.Error("fake random u64 repeats")
	}

	real := &instance{p: &Provider{realClock: true, realRandom: true}}
	w := call(real, "wasi:clocks/wall-clock#now").(wit.Record)
	if got := time.Unix(int64(w[0].(uint64)), int64(w[1].(uint64))); time.Since(got).Abs() > time.Minute {
		t.Errorf("real wall clock %v, now %v", got, time.Now())
	}
	r1, r2 := call(real, "wasi:random/random#get-random-bytes").([]byte), call(&instance{p: real.p}, "wasi:random/random#get-random-bytes").([]byte)
	if bytes.Equal(r1, r2) {
		t.Errorf("real random bytes of two instances are the same: %x", r1)
	}
}
