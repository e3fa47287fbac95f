package js

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/hostop"
)

// TestProcessHostCallsInFlightBounded: a JS worker process whose tool
// starts 400 ctx.callTool at once gets every answer, while at most
// hostop.MaxInFlight of them run at once in the host.
func TestProcessHostCallsInFlightBounded(t *testing.T) {
	p := loadIsolated(t, Options{}, `aios.registerTool({name: 'fan', parameters: {type: 'object'}}, async (params, ctx) => {
  const rs = await Promise.all(Array.from({length: params.n}, () => ctx.callTool('slow', {})));
  return {n: rs.length};
});`)
	env := newFakeEnv()
	var mu sync.Mutex
	now, peak := 0, 0
	env.tools["slow"] = func(context.Context, any) (any, error) {
		mu.Lock()
		now++
		peak = max(peak, now)
		mu.Unlock()
		time.Sleep(3 * time.Millisecond)
		mu.Lock()
		now--
		mu.Unlock()
		return true, nil
	}
	v, err := callIsolated(t, p, env, "fan", map[string]any{"n": 400}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := v.(map[string]any)["n"].(int64); n != 400 {
		t.Fatalf("fan: %#v", v)
	}
	mu.Lock()
	defer mu.Unlock()
	if peak > hostop.MaxInFlight || peak < 2 {
		t.Fatalf("%d host calls ran at once, want 2..%d", peak, hostop.MaxInFlight)
	}
}
