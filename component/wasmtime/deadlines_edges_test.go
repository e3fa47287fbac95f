//go:build wasmtime

package wasmtime

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A call that needs a new instance (cold pool) runs the component's start
// code under its deadline (TestComponentStartUnderCallDeadline), and now
// under its caller's cancel too: the epoch callback read the context of a
// running call only, and start code has none, so a caller that cancelled
// while a slow start ran waited for the whole start (then got Cancelled).
func TestStartStopsOnCancel(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1})
	start := time.Now()
	p, err := l.LoadBytes(context.Background(), abi.Source{Path: "slowstart.wasm"}, slowStartComponent(2_000_000_000))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	startCost := time.Since(start)
	if startCost < 600*time.Millisecond {
		t.Skipf("start code took only %v: too fast to tell", startCost)
	}
	wp := p.(*Provider)
	wp.release(<-wp.pool) // the next call needs a new instance
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	_, err = wp.Call(ctx, &abi.ToolCall{ID: "c", Tool: "run", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, &fakeEnv{})
	took := time.Since(start)
	if abi.CodeOf(err) != abi.Cancelled || took > startCost/2 {
		t.Fatalf("call cancelled 50 ms into a new instance's start (which takes %v): %v after %v, want Cancelled at once", startCost, err, took)
	}
	if !strings.Contains(err.Error(), "new instance") {
		t.Errorf("Cancelled %q does not say a new instance was starting", err)
	}
	if n := wp.Instances(); n != 0 {
		t.Errorf("%d instances left after the cancelled start, want 0", n)
	}
	// A load's start code stops when the load's context ends, saying so.
	lctx, lcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer lcancel()
	start = time.Now()
	_, err = l.LoadBytes(lctx, abi.Source{Path: "slowstart.wasm"}, slowStartComponent(2_000_000_000))
	if took := time.Since(start); err == nil || took > startCost/2 || !strings.Contains(err.Error(), "slowstart.wasm") || !strings.Contains(err.Error(), "did not finish by the deadline") {
		t.Errorf("load under a 100 ms context of a component whose start takes %v: %v after %v, want an error naming the file and the deadline at once", startCost, err, took)
	}
}

// The wasmtime component provider did not implement abi.DeadlineKeeper, so
// the host ran every call of it on a watcher goroutine with a timer, which
// costs more than a fast call itself (on wazero the provider keeps its
// deadlines). A component that does not import wasi:io/poll cannot wait in
// WASI: the epoch callback stops its guest at the deadline and at the
// caller's cancel, so the provider now keeps its deadlines for it (one
// that imports wasi:io/poll can sleep in native code that a cancel does
// not cut short, and stays watched). Called directly, as the host then
// does: a cancel or the deadline stops a busy guest at once, the instance
// is discarded before Call returns (no pool slot held), the next call is
// served, and nothing is left running.
func TestKeepsDeadlinesUnlessItCanWait(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1})
	p := loadWT(t, l, "conformance")
	keeps := func(p abi.Provider) bool {
		k, ok := p.(abi.DeadlineKeeper)
		return ok && k.KeepsDeadlines()
	}
	if !keeps(p) {
		t.Errorf("conformance (no wasi:io/poll import) does not keep its deadlines on wasmtime")
	}
	if keeps(loadSleeper(t, l)) {
		t.Errorf("a component importing wasi:io/poll keeps its deadlines: a cancel would not end its sleep")
	}
	goroutines := runtime.NumGoroutine()
	for i := range 6 {
		ctx, cancel := context.WithCancel(context.Background())
		deadline := time.Now().Add(30 * time.Second)
		want := abi.Cancelled
		if i%2 == 1 {
			deadline, want = time.Now().Add(50*time.Millisecond), abi.Timeout
		} else {
			time.AfterFunc(50*time.Millisecond, cancel)
		}
		start := time.Now()
		_, err := p.Call(ctx, &abi.ToolCall{ID: "c", Tool: "sleep", Params: map[string]any{"ms": int64(1e9)}, Deadline: deadline}, &fakeEnv{})
		took := time.Since(start)
		cancel()
		if abi.CodeOf(err) != want || took > 3*time.Second {
			t.Fatalf("busy sleep stopped by %s: %v after %v", want, err, took)
		}
		if idle, busy := p.PoolStats(); busy != 0 || p.Instances() != idle {
			t.Fatalf("after the %s call returned: %d busy, %d idle, %d live instances; want the stopped one gone", want, busy, idle, p.Instances())
		}
		got, err := callP(p, &fakeEnv{}, "add", map[string]any{"a": int64(2), "b": int64(3)}, 5*time.Second)
		if err != nil || got.(map[string]any)["sum"] != int64(5) {
			t.Fatalf("after a %s call: add = %v, %v", want, got, err)
		}
	}
	// Nothing left running: the goroutine count comes back (polled, not
	// timed: the AfterFunc goroutines end on their own).
	for end := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > goroutines; {
		if time.Now().After(end) {
			t.Fatalf("%d goroutines after the calls, %d before", runtime.NumGoroutine(), goroutines)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A call whose caller cancelled, or whose deadline passed, while its guest
// ran to its end (here: before it began) fails with Cancelled / Timeout.
// The message blamed a wait in WASI ("the component returned later (a wait
// in WASI, such as a sleep, is not cut short by a cancel ...)") for a
// component that cannot wait in WASI at all (no wasi:io/poll import); it
// now says so only of one that can.
func TestLateResultMessageWaitOnlyWithPoll(t *testing.T) {
	l := newLoader(t, Options{})
	conf := loadWT(t, l, "conformance")
	sleeper := loadSleeper(t, l)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		p        *Provider
		tool     string
		params   map[string]any
		mentions bool
	}{
		{conf, "add", map[string]any{"a": int64(1), "b": int64(2)}, false},
		{sleeper, "sleep", map[string]any{"ms": int64(0)}, true},
	} {
		for _, c := range []struct {
			ctx  context.Context
			dl   time.Time
			want abi.ErrorCode
		}{{cancelled, time.Now().Add(5 * time.Second), abi.Cancelled}, {context.Background(), time.Now().Add(-time.Second), abi.Timeout}} {
			// The epoch callback may see the cancel or the deadline while
			// the guest runs and stop it ("the component instance was
			// stopped", which blames no wait): a right answer too, but not
			// the one under test, so the call is made again, up to 20
			// times, until the guest runs to its end.
			var err error
			for try := 0; try < 20; try++ {
				_, err = tc.p.Call(c.ctx, &abi.ToolCall{ID: "c", Tool: tc.tool, Params: tc.params, Deadline: c.dl}, &fakeEnv{})
				if err == nil || !strings.Contains(err.Error(), "instance was stopped") {
					break
				}
			}
			if abi.CodeOf(err) != c.want || strings.Contains(err.Error(), "WASI") != tc.mentions || strings.Contains(err.Error(), "instance was stopped") {
				t.Errorf("%s of %s: %v; want %s, mentioning a wait in WASI: %v", tc.tool, tc.p.name, err, c.want, tc.mentions)
			}
		}
	}
}
