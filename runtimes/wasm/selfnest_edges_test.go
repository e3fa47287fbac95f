package wasm

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// fanState is what the calls of TestNestedCallsBeyondPoolBounded share.
type fanState struct {
	n       int
	release chan struct{}
	inside  atomic.Int32 // leaf host calls held now
	most    atomic.Int32 // the most held at once
	arrived atomic.Int32
	held    int32 // inside when the late call was made
	errs    chan error
	lateErr error
}

// fanEnv answers the guest's call_tool as a relay of another runtime
// would (a JS tool's Promise.all of ctx.callTool): n calls back into the
// provider at once, each carrying the context of the guest's host call,
// so each finds the pool full and may not wait for the instance that
// waits for it. The guest of each such call makes a host call again,
// which is held until release is closed.
type fanEnv struct {
	*fakeEnv
	s *fanState
}

func (e *fanEnv) CallTool(ctx context.Context, tool, version string, params any) (any, error) {
	s := e.s
	if e.call.Depth > 0 { // a leaf: hold its instance
		n := s.inside.Add(1)
		s.arrived.Add(1)
		for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
		}
		defer s.inside.Add(-1)
		select {
		case <-s.release:
		case <-ctx.Done():
		}
		return map[string]any{}, nil
	}
	back := func(id, tool string, d time.Duration) error {
		c := &abi.ToolCall{ID: id, ParentID: e.call.ID, Caller: "org.test.relay", Tool: tool, Params: map[string]any{},
			Depth: 1, Deadline: time.Now().Add(d)}
		child := *e
		child.fakeEnv = &fakeEnv{p: e.p, call: c, maxDepth: e.maxDepth, spaces: e.spaces, logger: e.logger}
		_, err := e.p.Call(ctx, c, &child)
		return err
	}
	var wg sync.WaitGroup
	for range s.n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.errs <- back("leaf", "nested", 30*time.Second)
		}()
	}
	// Wait for the calls that get an instance to reach their host call
	// (the others, bounded, wait for one), then give unbounded code time
	// to start the rest.
	for start := time.Now(); s.arrived.Load() < 9 && time.Since(start) < 30*time.Second; {
		time.Sleep(10 * time.Millisecond)
	}
	for start := time.Now(); s.arrived.Load() < int32(s.n) && time.Since(start) < 2*time.Second; {
		time.Sleep(10 * time.Millisecond)
	}
	s.held = s.inside.Load()
	// One more call back into the provider, with a short deadline, while
	// the bound is reached.
	s.lateErr = back("late", "const", 300*time.Millisecond)
	close(s.release)
	wg.Wait()
	return map[string]any{}, nil
}

// TestNestedCallsBeyondPoolBounded: a call that comes back into a WASM
// provider from one of its own host calls (through a relay of another
// runtime) runs on an instance started beyond the pool, since the instance
// that waits for it cannot serve it. Those instances were not bounded at
// all: a JS or Python relay fanning out a hundred calls back into the
// module made a hundred instances at once, each up to memory_limit_pages
// (256 MiB), and a module recursing through such a relay multiplied them
// at every level, past the host's memory (the JS and Python runtimes bound
// theirs at max(pool_size, 8)). Now at most max(pool_size, 8) run beyond
// the pool at once, besides one for each host call (so that a guest
// recursing through call_tool still reaches limits.max_call_depth,
// TestNestedCallsDoNotShareStack); a call past that waits for one to end,
// or at its deadline fails with Timeout naming the pool's setting and the
// instances beyond it.
func TestNestedCallsBeyondPoolBounded(t *testing.T) {
	const fan = 20
	for engine, l := range probeLoaders(t, Config{PoolSize: 1, DeadlineGranularity: time.Millisecond}, nil) {
		t.Run(engine, func(t *testing.T) {
			p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, basicWAT("org.test.selfnest", 2))})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			s := &fanState{n: fan, release: make(chan struct{}), errs: make(chan error, fan)}
			env := &fanEnv{fakeEnv: newFakeEnv(p, 8), s: s}
			env.call = &abi.ToolCall{ID: "top", Tool: "nested", Params: map[string]any{}, Deadline: time.Now().Add(time.Minute)}
			if _, err := p.Call(context.Background(), env.call, env); err != nil {
				t.Fatalf("top call: %v", err)
			}
			for range fan {
				if err := <-s.errs; err != nil {
					t.Errorf("a call back into the provider: %v", err)
				}
			}
			// The first call back of the guest's host call runs free (what
			// a recursion through call_tool needs, one instance a level),
			// the others on the 8 beyond the pool.
			if m := s.most.Load(); m > 9 || s.held > 9 {
				t.Fatalf("%d instances beyond the pool of 1 served calls back into the provider at once; want at most 1 + max(pool_size, 8) = 9", max(m, s.held))
			}
			if s.arrived.Load() != fan {
				t.Fatalf("%d of the %d calls were served once instances were free", s.arrived.Load(), fan)
			}
			if abi.CodeOf(s.lateErr) != abi.Timeout || !strings.Contains(s.lateErr.Error(), "runtimes.wasm.pool_size") || !strings.Contains(s.lateErr.Error(), "8 started beyond") {
				t.Fatalf("a call back into the provider past the bound got %v; want Timeout naming runtimes.wasm.pool_size and the 8 instances beyond the pool", s.lateErr)
			}
		})
	}
}
