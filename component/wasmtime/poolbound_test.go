//go:build wasmtime

package wasmtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// reentrantEnv sends a guest's nested calls back into p, as the host does
// for a tool of the same provider.
type reentrantEnv struct {
	fakeEnv
	p *Provider
}

func (e *reentrantEnv) CallTool(ctx context.Context, tool, version string, params any) (any, error) {
	return e.p.Call(ctx, &abi.ToolCall{ID: "n", Tool: tool, Params: params, Depth: 1, Deadline: time.Now().Add(5 * time.Second)}, e)
}

// TestPoolSizeBoundsBusyInstances is the wazero component runtime's test
// of the same name on wasmtime: at most PoolSize instances serve calls at
// once, a call finding them busy waits until its deadline (Timeout naming
// runtimes.wasm.pool_size), and a nested call back into the provider does
// not wait.
func TestPoolSizeBoundsBusyInstances(t *testing.T) {
	p := loadWT(t, newLoader(t, Options{PoolSize: 2}), "conformance")
	// The sleeps end when cancelled below, not at a deadline: with a
	// deadline 1.5 s after start, two instances made on a loaded machine
	// (-race, 2 busy cores) could be late enough for the sleeps to end
	// before the third call, which then found an instance free.
	sleeps, endSleeps := context.WithCancel(context.Background())
	defer endSleeps()
	start := time.Now()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = p.Call(sleeps, &abi.ToolCall{ID: "s", Tool: "sleep", Params: map[string]any{"ms": int64(1e9)}, Deadline: start.Add(time.Minute)}, &fakeEnv{})
		}()
	}
	for p.bound.Busy() < 2 {
		if time.Since(start) > 30*time.Second {
			t.Fatal("the two sleeps never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, err := p.Call(context.Background(), &abi.ToolCall{ID: "e", Tool: "add", Params: map[string]any{"a": int64(1), "b": int64(2)}, Deadline: time.Now().Add(200 * time.Millisecond)}, &fakeEnv{})
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "all 2 instances of") || !strings.Contains(err.Error(), "runtimes.wasm.pool_size") {
		t.Fatalf("a third call while two run: want Timeout naming the bound, got %v", err)
	}
	time.AfterFunc(200*time.Millisecond, endSleeps) // while the next call waits
	got, err := callP(p, &fakeEnv{}, "add", map[string]any{"a": int64(2), "b": int64(3)}, 8*time.Second)
	if err != nil || got.(map[string]any)["sum"] != int64(5) {
		t.Fatalf("a call waiting for a free instance: add = %v, %v", got, err)
	}
	wg.Wait()
	if n := p.bound.Busy(); n != 0 {
		t.Errorf("%d units of the bound still taken after every call ended", n)
	}

	q := loadWT(t, newLoader(t, Options{PoolSize: 1}), "conformance")
	env := &reentrantEnv{p: q}
	v, err := q.Call(context.Background(), &abi.ToolCall{ID: "r", Tool: "nested", Params: map[string]any{"tool": "echo", "params": map[string]any{"value": 3}}, Deadline: time.Now().Add(5 * time.Second)}, env)
	if err != nil {
		t.Fatalf("a nested call back into a provider of one instance: %v", err)
	}
	if b, _ := json.Marshal(v); !strings.Contains(string(b), `"value":3`) {
		t.Errorf("nested echo returned %v", v)
	}
}
