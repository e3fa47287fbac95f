package host

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestWideCycleInResultEnds: a Go tool's result (or a Go caller's params)
// holding a map under two of its own keys never came back: measuring its
// size stopped each path at 512 levels but walked every path, 2^512 of
// them, and the call spun a CPU for good. The walk ends at the first path
// too deep now, and the value is refused (over the size limit, or nested
// too deep: whichever the value's normalization meets first).
func TestWideCycleInResultEnds(t *testing.T) {
	for _, limit := range []int{1024, 16 << 20} {
		te := newTestHost(t, func(c *config.Config) { c.Limits.MaxParamsBytes, c.Limits.MaxResultBytes = limit, limit })
		cyc := func() map[string]any {
			m := map[string]any{}
			m["a"], m["b"] = m, m
			return m
		}
		p := native.New(abi.ProviderInfo{ID: "org.test.cyc"})
		p.MustRegister(abi.ToolDef{Name: "cyc"}, func(context.Context, any, abi.Env) (any, error) { return cyc(), nil })
		if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []*abi.ToolCall{
			{Caller: "alice", Tool: "cyc", Params: map[string]any{}},
			{Caller: "alice", Tool: "echo", Params: cyc()},
		} {
			done := make(chan error, 1)
			go func() { _, err := te.h.Call(context.Background(), c); done <- err }()
			select {
			case err := <-done:
				if code := abi.CodeOf(err); code != abi.TooLarge && code != abi.InvalidResult && code != abi.InvalidParams {
					t.Errorf("limit %d: %s of a value holding itself twice: %v", limit, c.Tool, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("limit %d: %s of a value holding itself twice did not end", limit, c.Tool)
			}
		}
	}
}

// TestSharedSubvaluesResultEnds: a Go tool's result of maps sharing
// their members (each level holding the one below under two keys, 64
// levels: 2^64 paths, no cycle) was measured path by path, for good,
// before the size limit refused it. Measuring stops once past the limit.
func TestSharedSubvaluesResultEnds(t *testing.T) {
	// 1 MiB: measuring to the limit takes a few seconds at 16 MiB under
	// the race detector on a loaded machine (a CI failure at 30 s).
	te := newTestHost(t, func(c *config.Config) { c.Limits.MaxResultBytes = 1 << 20 })
	p := native.New(abi.ProviderInfo{ID: "org.test.dag"})
	p.MustRegister(abi.ToolDef{Name: "dag"}, func(context.Context, any, abi.Env) (any, error) {
		v := any("x")
		for range 64 {
			v = map[string]any{"a": v, "b": v}
		}
		return v, nil
	})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "dag", Params: map[string]any{}})
		done <- err
	}()
	select {
	case err := <-done:
		if abi.CodeOf(err) != abi.TooLarge {
			t.Errorf("a result of 2^64 paths: %v, want TooLarge", err)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("a result of 2^64 paths did not end")
	}
}
