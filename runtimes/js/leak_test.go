package js

import (
	"bytes"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLeakPendingCalls: calls that time out while JS waits (a promise
// that never settles, a long timer, a busy loop, a throw) and calls whose
// runtime is abandoned must not leave goroutines, timers or heap behind
// call after call; the provider keeps serving.
func TestLeakPendingCalls(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "pending.js", `
aios.provider({ id: 'org.test.pending', name: 'pending' });
aios.registerTool({ name: 'never', parameters: { type: 'object' } }, async () => { await new Promise(() => {}); });
aios.registerTool({ name: 'timer', parameters: { type: 'object' } }, async () => { await new Promise(r => setTimeout(r, 600000)); return 1; });
aios.registerTool({ name: 'spin', parameters: { type: 'object' } }, () => { for (;;) {} });
aios.registerTool({ name: 'throw', parameters: { type: 'object' } }, () => { throw new Error('boom ' + 'x'.repeat(100000)); });
aios.registerTool({ name: 'echo', parameters: { type: 'object' } }, (p) => p);
`)
	env := newFakeEnv()
	round := func() {
		for _, tool := range []string{"never", "timer", "spin", "throw"} {
			_, _ = call(t, p, env, tool, map[string]any{}, 20*time.Millisecond)
		}
		if v, err := call(t, p, env, "echo", map[string]any{"a": int64(1)}, 5*time.Second); err != nil {
			t.Fatalf("echo after the failures: %v, %v", v, err)
		}
	}
	snap := func() (int, uint64) {
		waitAbandoned(t, p, 30*time.Second)
		time.Sleep(50 * time.Millisecond)
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return runtime.NumGoroutine(), ms.HeapAlloc
	}
	for i := 0; i < 5; i++ {
		round()
	}
	g0, h0 := snap()
	for i := 0; i < 40; i++ {
		round()
	}
	g1, h1 := snap()
	if g1 > g0+3 {
		// The goroutines of the last calls may still be on their way out
		// on a loaded machine (-race, 2 busy cores): give them time.
		g1 = testutil.SettleGoroutines(g0+3, 30*time.Second)
	}
	t.Logf("goroutines %d -> %d, heap %d -> %d KiB", g0, g1, h0>>10, h1>>10)
	if g1 > g0+3 || h1 > h0+8<<20 {
		var b bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Errorf("after 160 failed calls: goroutines %d -> %d, heap %d -> %d KiB\n%s", g0, g1, h0>>10, h1>>10, b.String())
	}
}
