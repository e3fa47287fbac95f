package js

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestTopLevelStatePerRuntime pins what docs/js.md now says (no defect in
// the code; the docs said the top-level code runs "once"): every runtime
// of a provider's pool runs the file's top-level code itself, so
// module-level variables (a counter, a cache) are one copy per runtime,
// not shared by calls running at once, and top-level side effects happen
// once per runtime. Four calls held together each see a fresh copy.
func TestTopLevelStatePerRuntime(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 4})
	p := loadSource(t, rt, "state.js", `
let calls = 0;
globalThis.loads = (globalThis.loads || 0) + 1;
aios.registerTool({ name: 'n', parameters: {} }, async (p, ctx) => {
  const mine = ++calls;
  await ctx.callTool('gate', {});
  return [mine, globalThis.loads];
});
`)
	env := newFakeEnv()
	var arrived sync.WaitGroup
	arrived.Add(4)
	release := make(chan struct{})
	env.tools["gate"] = func(ctx context.Context, _ any) (any, error) {
		arrived.Done()
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	}
	res := make(chan any, 4)
	for range 4 {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			got, err := p.Call(ctx, &abi.ToolCall{ID: "c1", Tool: "n", Params: map[string]any{}}, env)
			if err != nil {
				t.Error(err)
			}
			res <- got
		}()
	}
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	select { // all four in their own runtime at once
	case <-all:
	case <-time.After(30 * time.Second):
		t.Fatal("four calls did not run at once on a pool of four runtimes")
	}
	close(release)
	for range 4 {
		l, _ := (<-res).([]any)
		if len(l) != 2 || l[0] != int64(1) || l[1] != int64(1) {
			t.Errorf("got %v; want [1 1]: each runtime has its own module state and ran the top-level code once", l)
		}
	}
}
