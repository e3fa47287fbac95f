package component

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

// TestPoolSizeBoundsBusyInstances: at most PoolSize instances of a
// component serve calls at once. A call that finds them all busy waits, and
// past its deadline gets a Timeout naming runtimes.wasm.pool_size; it
// runs once one is free. A tool's nested call back into its own provider
// does not wait (its caller holds the only instance). Before, every call
// that found no idle instance made one more: a thousand concurrent calls
// were a thousand instances of up to 256 MiB each.
func TestPoolSizeBoundsBusyInstances(t *testing.T) {
	p, err := New(context.Background(), sample(t, "conformance"), "conformance.wasm", "", Options{CacheDir: testCacheDir(), RealClock: true, PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = p.Call(context.Background(), &abi.ToolCall{ID: "s", Tool: "sleep", Params: map[string]any{"ms": int64(1200)}, Deadline: start.Add(10 * time.Second)}, &fakeEnv{})
		}()
	}
	// Wait until both sleeps hold their instance.
	for p.bound.Busy() < 2 {
		if time.Since(start) > 5*time.Second {
			t.Fatal("the two sleeps never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, err = p.Call(context.Background(), &abi.ToolCall{ID: "e", Tool: "echo", Params: map[string]any{"value": 1}, Deadline: time.Now().Add(200 * time.Millisecond)}, &fakeEnv{})
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "all 2 instances of") || !strings.Contains(err.Error(), "runtimes.wasm.pool_size") {
		t.Fatalf("a third call while two run: want Timeout naming the bound, got %v", err)
	}
	// A call that may wait long enough runs when a sleep ends.
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "e2", Tool: "echo", Params: map[string]any{"value": 2}, Deadline: time.Now().Add(8 * time.Second)}, &fakeEnv{})
	if err != nil {
		t.Fatalf("a call waiting for a free instance: %v", err)
	}
	if m, _ := v.(map[string]any); m == nil || m["value"] == nil {
		t.Errorf("echo returned %v", v)
	}
	wg.Wait()
	if n := p.bound.Busy(); n != 0 {
		t.Errorf("%d units of the bound still taken after every call ended", n)
	}

	// PoolSize 1: the nested tool calls echo of its own provider.
	q, err := New(context.Background(), sample(t, "conformance"), "conformance.wasm", "", Options{CacheDir: testCacheDir(), PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	env := &reentrantEnv{p: q}
	v, err = q.Call(context.Background(), &abi.ToolCall{ID: "r", Tool: "nested", Params: map[string]any{"tool": "echo", "params": map[string]any{"value": 3}}, Deadline: time.Now().Add(5 * time.Second)}, env)
	if err != nil {
		t.Fatalf("a nested call back into a provider of one instance: %v", err)
	}
	if b, _ := json.Marshal(v); !strings.Contains(string(b), `"value":3`) {
		t.Errorf("nested echo returned %v", v)
	}
	if n := q.bound.Busy(); n != 0 {
		t.Errorf("%d units taken after the nested call", n)
	}
}
