package js

import (
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

const poolProvider = `
let calls = 0; // per runtime: shows which runtime served a call
aios.registerTool({ name: 'count', parameters: { type: 'object' } }, async (p) => {
  calls++;
  if (p.wait) await new Promise((r) => setTimeout(r, p.wait));
  return { calls };
});
aios.registerTool({ name: 'loop', parameters: { type: 'object' } }, () => { for (;;) {} });
aios.registerTool({ name: 'bomb', parameters: { type: 'object' } }, () => {
  const keep = [];
  for (;;) keep.push(new Array(1 << 16).fill(keep.length));
});
`

// TestPoolConcurrency runs calls in parallel: each runtime serves one call
// at a time, the pool grows to PoolSize, and results are not mixed.
func TestPoolConcurrency(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 4})
	p := loadSource(t, rt, "pool.js", poolProvider)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	start := time.Now()
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := call(t, p, newFakeEnv(), "count", map[string]any{"wait": int64(30), "i": int64(i)}, 5*time.Second)
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// 16 calls of 30 ms on 4 runtimes need at least 4 rounds.
	if d := time.Since(start); d < 110*time.Millisecond {
		t.Errorf("16 calls finished in %v: more than PoolSize=4 ran at once", d)
	}
	if n := len(p.tokens); n > 4 {
		t.Errorf("%d live runtimes, want at most 4", n)
	}
}

// TestInterruptedRuntimeDiscarded checks that a runtime stopped by the
// watchdog is not reused: its per-runtime state is gone.
func TestInterruptedRuntimeDiscarded(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1})
	p := loadSource(t, rt, "pool.js", poolProvider)
	env := newFakeEnv()
	for i := 1; i <= 3; i++ {
		res, err := call(t, p, env, "count", map[string]any{}, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.(map[string]any)["calls"]; got != int64(i) {
			t.Fatalf("call %d: calls = %v, want %d (same runtime reused)", i, got, i)
		}
	}
	_, err := call(t, p, env, "loop", map[string]any{}, 50*time.Millisecond)
	wantCode(t, err, abi.Timeout)
	res, err := call(t, p, env, "count", map[string]any{}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(map[string]any)["calls"]; got != int64(1) {
		t.Errorf("after an interrupt calls = %v, want 1 (a fresh runtime)", got)
	}
}

// TestMemoryBombBounded samples the heap while a bomb runs and checks the
// guard stops it near the budget, well before the heap grows unbounded.
//
// The deadline is far beyond what the bomb needs even under -race on a
// loaded machine (goja is ~10x slower there: the bomb takes seconds to
// reach the budget), so only the memory guard can stop it in time: a
// Timeout fails the test.
func TestMemoryBombBounded(t *testing.T) {
	const budget = 96 << 20
	rt := newRuntime(t, Options{MemoryBudget: budget})
	p := loadSource(t, rt, "pool.js", poolProvider)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC() // garbage of earlier tests is not part of the baseline
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
		}
	}()
	start := time.Now()
	_, err := call(t, p, newFakeEnv(), "bomb", map[string]any{}, 5*time.Minute)
	close(stop)
	<-done
	te := wantCode(t, err, abi.ProviderCrashed)
	if !strings.Contains(te.Message, "memory budget exceeded") {
		t.Errorf("stopped by %q, want the memory guard", te.Message)
	}
	t.Logf("%s; heap peak grew %d MiB over the start; stopped after %v", te.Message, (peak-base)>>20, time.Since(start).Round(time.Millisecond))
	if grew := peak - base; grew > 3*budget {
		t.Errorf("heap grew by %d MiB for a %d MiB budget", grew>>20, budget>>20)
	}
	if _, err := call(t, p, newFakeEnv(), "count", map[string]any{}, 10*time.Second); err != nil {
		t.Errorf("after the bomb: %v", err)
	}
}

// TestProviderClose refuses calls after Close.
func TestProviderClose(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "pool.js", poolProvider)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, p, newFakeEnv(), "count", map[string]any{}, 10*time.Second)
	wantCode(t, err, abi.Unavailable)
}

// TestUninterruptibleBuiltinAbandoned: a backtracking regexp runs inside a
// native built-in that vm.Interrupt cannot stop; Call still returns shortly
// after the deadline, and the pool serves the next call with a new runtime
// (TestAbandonedRuntimesBounded: while fewer than PoolSize are abandoned).
func TestUninterruptibleBuiltinAbandoned(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 2})
	p := loadSource(t, rt, "regex.js", `
aios.registerTool({ name: 'regex', parameters: { type: 'object' } },
  (p) => ({ m: /^(a+)+(?=b)\1$/.test('a'.repeat(p.n) + 'c') }));
aios.registerTool({ name: 'ok', parameters: { type: 'object' } }, () => ({ ok: true }));
`)
	n := regexLength(t, p, 2*time.Second)
	start := time.Now()
	_, err := call(t, p, newFakeEnv(), "regex", map[string]any{"n": int64(n)}, 100*time.Millisecond)
	te := wantCode(t, err, abi.Timeout)
	if d := time.Since(start); d > 100*time.Millisecond+abandonGrace()+500*time.Millisecond {
		t.Errorf("returned after %v", d)
	}
	if !strings.Contains(te.Message, "abandoned") {
		t.Errorf("message = %q", te.Message)
	}
	res, err := call(t, p, newFakeEnv(), "ok", map[string]any{}, 2*time.Second)
	if err != nil || !equalJSON(res, map[string]any{"ok": true}) {
		t.Fatalf("next call: %v, %v", res, err)
	}
}

// regexLength picks the subject length for which the backtracking regexp
// of TestUninterruptibleBuiltinAbandoned runs about target on this machine
// and build (-race makes goja ~25x slower): long enough to outlive the
// deadline plus abandonGrace by far, short enough that the abandoned
// runtime finishes soon after the test (its cleanup waits for it, so it
// cannot burn CPU and skew the timing of later tests). Each extra
// character doubles the work.
func regexLength(t *testing.T, p *Provider, target time.Duration) int {
	t.Helper()
	const n0 = 16
	start := time.Now()
	if _, err := call(t, p, newFakeEnv(), "regex", map[string]any{"n": int64(n0)}, time.Minute); err != nil {
		t.Fatalf("calibration run: %v", err)
	}
	d := max(time.Since(start), time.Millisecond)
	n := n0
	for ; d < target && n < 30; n++ {
		d *= 2
	}
	t.Logf("regexp subject of %d characters (%d ran %v)", n, n0, time.Since(start).Round(time.Millisecond))
	return max(n, n0+2)
}

// TestPrewarm: Prewarm starts runtimes up to n (never past PoolSize), each
// one serves calls, and a closed provider refuses.
func TestPrewarm(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pool, warm int
		wantLive   int
	}{
		{"none", 4, 0, 1}, // the load-time runtime is always there
		{"some", 4, 3, 3},
		{"capped", 2, 8, 2},
		{"again", 4, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := newRuntime(t, Options{PoolSize: tc.pool})
			p := loadSource(t, rt, "pool.js", poolProvider)
			if err := p.Prewarm(tc.warm); err != nil {
				t.Fatal(err)
			}
			if live, idle := len(p.tokens), len(p.free); live != tc.wantLive || idle != tc.wantLive {
				t.Fatalf("after Prewarm(%d): %d live, %d idle runtimes, want %d", tc.warm, live, idle, tc.wantLive)
			}
			// The pool is FIFO: each of the first calls gets another warm
			// runtime, so each sees calls=1.
			for i := range tc.wantLive {
				res, err := call(t, p, newFakeEnv(), "count", map[string]any{}, 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if got := res.(map[string]any)["calls"]; got != int64(1) {
					t.Errorf("call %d: calls = %v, want 1 (a fresh warm runtime)", i, got)
				}
			}
			_ = p.Close()
			if err := p.Prewarm(tc.pool); tc.wantLive < tc.pool && err == nil {
				t.Error("Prewarm on a closed provider: want an error")
			}
		})
	}
}
