package host

import (
	"context"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

func TestOnCallObservesEveryCall(t *testing.T) {
	te := newTestHost(t, nil)
	var mu sync.Mutex
	var seen []CallStats
	remove := te.h.OnCall(func(s CallStats) {
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
	})
	if _, err := te.call("alice", "nested", map[string]any{"tool": "whoami"}); err != nil {
		t.Fatal(err)
	}
	_, _ = te.call("alice", "no-such-tool", nil)
	_, _ = te.call("bob", "panic", nil)

	cases := []struct {
		tool, caller, runtime string
		code                  abi.ErrorCode
		nested                bool
	}{
		{"whoami", "org.test.tools", "native", "", true}, // the nested call finishes first
		{"nested", "alice", "native", "", false},
		{"no-such-tool", "alice", "", abi.NotFound, false},
		{"panic", "bob", "native", abi.CapabilityDenied, false},
	}
	if len(seen) != len(cases) {
		t.Fatalf("observed %d calls, want %d: %+v", len(seen), len(cases), seen)
	}
	for i, c := range cases {
		s := seen[i]
		if s.Tool != c.tool || s.Caller != c.caller || s.Runtime != c.runtime || s.Code != c.code || s.Nested != c.nested || s.CallID == "" {
			t.Errorf("call %d = %+v, want tool %s caller %s runtime %q code %q nested %v", i, s, c.tool, c.caller, c.runtime, c.code, c.nested)
		}
		if s.OK() != (c.code == "") {
			t.Errorf("call %d: OK() = %v", i, s.OK())
		}
	}
	if seen[0].ParentID != seen[1].CallID || seen[0].Depth != 1 || seen[0].Provider != "org.test.tools" || seen[0].Version != "1.0.0" {
		t.Errorf("nested stats %+v, parent %+v", seen[0], seen[1])
	}
	remove()
	remove() // idempotent
	if _, err := te.call("alice", "echo", map[string]any{"msg": "x"}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(cases) {
		t.Fatalf("observer called after remove")
	}
}

func TestObserverPanicDoesNotFailCall(t *testing.T) {
	te := newTestHost(t, nil)
	calls := 0
	defer te.h.OnCall(func(CallStats) { panic("observer bug") })()
	defer te.h.OnCall(func(CallStats) { calls++ })()
	v, err := te.call("alice", "echo", map[string]any{"msg": "x"})
	if err != nil || v.(map[string]any)["msg"] != "x" {
		t.Fatalf("call with a panicking observer = %v, %v", v, err)
	}
	if calls != 1 {
		t.Fatalf("second observer called %d times, want 1", calls)
	}
}

// TestObserverAllocations: registering an observer adds no allocation to
// a call (CallStats is passed by value), and none is done without one.
func TestObserverAllocations(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) { c.RateLimits.Global = nil })
	// No audit log: count the pipeline's own allocations.
	if err := te.h.audit.Close(); err != nil {
		t.Fatal(err)
	}
	te.h.audit = nil
	call := &abi.ToolCall{Caller: "alice", Tool: "echo", Params: map[string]any{"msg": "hello", "n": int64(42)}}
	ctx := context.Background()
	run := func() {
		if _, err := te.h.Call(ctx, call); err != nil {
			t.Fatal(err)
		}
	}
	without := testing.AllocsPerRun(200, run)
	n := 0
	remove := te.h.OnCall(func(s CallStats) { n += len(s.Tool) })
	with := testing.AllocsPerRun(200, run)
	remove()
	if with != without {
		t.Fatalf("allocations per call: %.1f with an observer, %.1f without", with, without)
	}
	if n == 0 {
		t.Fatal("observer not called")
	}
}
