//go:build wasmtime

package wasmtime

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// Close while calls run (docs/components.md): idle instances go at once,
// busy ones when their call ends, and a call that comes after is
// Unavailable. A call that had passed get's closed check and was
// instantiating when the last busy instance released the provider used
// the freed component and linker (a use after free in wasmtime: the
// process died).
func TestProbeComponentCloseWhileCalling(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1})
	for round := range 20 {
		p, err := l.Load(context.Background(), abi.Source{Path: sample(t, "hello")})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					_, err := callP(p, &fakeEnv{}, "add", map[string]any{"a": int64(1), "b": int64(2)}, 5*time.Second)
					if err != nil && abi.CodeOf(err) != abi.Unavailable {
						t.Errorf("round %d: call during Close: %v", round, err)
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(5+round) * time.Millisecond)
		_ = p.Close()
		time.Sleep(5 * time.Millisecond)
		close(stop)
		wg.Wait()
		if n := p.(*Provider).Instances(); n != 0 {
			t.Fatalf("round %d: %d instances left open after Close", round, n)
		}
	}
}

// A component's stdout reaches the host log (docs/components.md, "WASI 0.2
// subset": one record per line, stream=stdout) on wasmtime as on wazero.
func TestProbeComponentStdoutLogged(t *testing.T) {
	l := newLoader(t, Options{})
	p := loadWT(t, l, "kitchen")
	env := &fakeEnv{}
	item := map[string]any{"name": "widget", "tags": []any{"a", "b", "c"}, "color": "blue",
		"perms": []any{"read", "exec"}, "shape": map[string]any{"tag": "rect", "val": []any{1.5, 2.0}}, "note": nil, "count": int64(3)}
	if _, err := callP(p, env, "transform", map[string]any{"item": item}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	if !strings.Contains(strings.Join(env.logs, ""), "transform widget: 3 tags") {
		t.Fatalf("the component's stdout did not reach the log: %q", env.logs)
	}
}
