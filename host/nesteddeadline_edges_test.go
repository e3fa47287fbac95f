package host

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/js"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestNestedCallGetsParentsDeadline: a nested call carries its parent's
// deadline. It got limits.default_deadline instead, cut to the parent's:
// a tool given 20 s saw the calls it made (from Go, or from JS through
// ctx.callTool) stopped after 1 s, the Timeout saying "its caller gave
// none". A deadline the nested call's context gives still shortens it.
func TestNestedCallGetsParentsDeadline(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) { c.Limits.DefaultDeadline = time.Second })
	p := native.New(abi.ProviderInfo{ID: "org.test.deadlines", Version: "1.0.0", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "deadline-of", Version: "1.0.0"}, func(_ context.Context, _ any, env abi.Env) (any, error) {
		return env.Call().Deadline.Format(time.RFC3339Nano), nil
	})
	p.MustRegister(abi.ToolDef{Name: "go-relay", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		if ms, _ := params.(map[string]any)["within_ms"].(int64); ms > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
			defer cancel()
		}
		return env.CallTool(ctx, "deadline-of", "", nil)
	})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	rt := js.New(js.Options{Isolation: js.IsolationInProcess})
	t.Cleanup(func() { _ = rt.Close() })
	for _, l := range rt.Loaders() {
		if l.Runtime() == abi.RuntimeJS {
			if err := te.h.AddLoader(l); err != nil {
				t.Fatal(err)
			}
		}
	}
	src := filepath.Join(t.TempDir(), "relay.js")
	code := `
aios.provider({ id: 'org.test.jsrelay', capabilities: ['CallTool(*)'] });
aios.registerTool({ name: 'js-relay', parameters: { type: 'object' } },
  async (p, ctx) => ctx.callTool('deadline-of', {}));
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := te.h.LoadFile(context.Background(), src, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for _, relay := range []string{"go-relay", "js-relay"} {
		want := time.Now().Add(20 * time.Second)
		v, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: relay, Params: map[string]any{}, Deadline: want})
		if err != nil {
			t.Fatalf("%s: %v", relay, err)
		}
		got, err := time.Parse(time.RFC3339Nano, v.(string))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(want) {
			t.Errorf("%s: the nested call's deadline is %v from its parent's, want its parent's (the call was given 20s, limits.default_deadline is 1s)", relay, got.Sub(want).Round(time.Millisecond))
		}
	}
	// Its context's shorter deadline is the nested call's.
	start := time.Now()
	v, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "go-relay", Params: map[string]any{"within_ms": int64(500)}, Deadline: start.Add(20 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := time.Parse(time.RFC3339Nano, v.(string))
	if d := got.Sub(start); d > 500*time.Millisecond+time.Second || d <= 0 {
		t.Errorf("a nested call made under a context of 500ms has a deadline %v after the call started", d)
	}
}
