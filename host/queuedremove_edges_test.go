package host

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/js"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestQueuedCallOfRemovedProviderRefused: a call of a JS tool waiting for
// a runtime of its provider's full pool (runtimes.js.pool_size) when the
// provider was removed waited on for the call in flight, then ran — on a
// runtime started for it after the provider had been closed: the removed
// code served it. As runtimes/wasm's pool does, the waiting call is
// refused at once with Unavailable saying why; the call in flight runs to
// its end.
func TestQueuedCallOfRemovedProviderRefused(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) { c.Limits.DefaultDeadline = time.Minute })
	rt := js.New(js.Options{Isolation: js.IsolationInProcess, PoolSize: 1})
	t.Cleanup(func() { _ = rt.Close() })
	for _, l := range rt.Loaders() {
		if l.Runtime() == abi.RuntimeJS {
			if err := te.h.AddLoader(l); err != nil {
				t.Fatal(err)
			}
		}
	}
	gate := make(chan struct{})
	entered := make(chan struct{}, 2)
	p := native.New(abi.ProviderInfo{ID: "org.test.gate", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "gate", Version: "1.0.0"}, func(ctx context.Context, _ any, _ abi.Env) (any, error) {
		entered <- struct{}{}
		select {
		case <-gate:
			return "opened", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "queue.js")
	code := `
aios.provider({ id: 'org.test.queue', capabilities: ['CallTool(gate)'] });
aios.registerTool({ name: 'js-wait', parameters: { type: 'object' } },
  async (p, ctx) => ctx.callTool('gate', {}));
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := te.h.LoadFile(context.Background(), src, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		v   any
		err error
	}
	first, queued := make(chan answer, 1), make(chan answer, 1)
	go func() {
		v, err := te.call("alice", "js-wait", map[string]any{})
		first <- answer{v, err}
	}()
	<-entered // the pool's one runtime awaits gate
	go func() {
		v, err := te.call("alice", "js-wait", map[string]any{})
		queued <- answer{v, err}
	}()
	// The second call waits for the pool's runtime.
	for deadline := time.Now().Add(10 * time.Second); ; {
		buf := make([]byte, 1<<20)
		if strings.Contains(string(buf[:runtime.Stack(buf, true)]), "runtimes/js.(*Provider).getSlow") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second call never reached the provider")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := te.h.RemoveProvider("org.test.queue"); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-queued:
		if abi.CodeOf(a.err) != abi.Unavailable || !strings.Contains(a.err.Error(), "org.test.queue was closed") || !strings.Contains(a.err.Error(), "runtimes.js.pool_size") {
			t.Errorf("the call waiting when its provider was removed: %v, %v; want Unavailable saying the provider was closed while it waited", a.v, a.err)
		}
	case <-time.After(10 * time.Second):
		close(gate)
		a := <-queued
		t.Fatalf("the call waiting when its provider was removed waited on for the call in flight, then got %v, %v", a.v, a.err)
	}
	close(gate)
	if a := <-first; a.err != nil || a.v != "opened" {
		t.Errorf("the call in flight when its provider was removed: %v, %v; want it to run to its end", a.v, a.err)
	}
}
