package host

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A native tool that changes the result of its nested call (or the params
// it passed) after the call returns does what Go code does with its own
// maps; the audit log must not be reading the same map then.
func TestNestedValuesNotSharedWithAudit(t *testing.T) {
	te := newTestHost(t, nil)
	p := native.New(abi.ProviderInfo{ID: "org.probe.mut", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "inner", Version: "1.0.0"},
		func(_ context.Context, params any, _ abi.Env) (any, error) {
			return map[string]any{"a": int64(1), "b": "x"}, nil
		})
	p.MustRegister(abi.ToolDef{Name: "outer", Version: "1.0.0"},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			params := map[string]any{"k": "v"}
			for i := range 300 {
				v, err := env.CallTool(ctx, "inner", "", params)
				if err != nil {
					return nil, err
				}
				m := v.(map[string]any)
				for j := range 20 {
					m[string(rune('c'+j))] = int64(i)
				}
				delete(m, "a")
				params["n"] = int64(i)
				params["k"+string(rune('a'+i%26))] = "w"
			}
			return "done", nil
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.call("alice", "outer", map[string]any{}); err != nil {
		t.Fatal(err)
	}
}

// The nested-grants cache is keyed by the provider record: a provider
// that made nested calls and was then removed (or replaced by a hot
// reload) stayed reachable from the cache, with everything its
// implementation holds (a module's bytes, pools), until 1024 other entries
// pushed it out. Removing or replacing a provider lets it go.
func TestGrantCacheReleasesRemovedProvider(t *testing.T) {
	te := newTestHost(t, nil)
	for _, replace := range []bool{false, true} {
		collected := make(chan struct{})
		func() {
			big := make([]byte, 8<<20)
			runtime.AddCleanup(&big[0], func(ch chan struct{}) { close(ch) }, collected)
			p := native.New(abi.ProviderInfo{ID: "org.probe.leak", Capabilities: []string{"CallTool(*)"}})
			p.MustRegister(abi.ToolDef{Name: "leaky", Version: "1.0.0"},
				func(ctx context.Context, _ any, env abi.Env) (any, error) {
					_ = big[len(big)-1]
					return env.CallTool(ctx, "echo", "", map[string]any{"msg": "x"})
				})
			if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
				t.Fatal(err)
			}
			if _, err := te.call("alice", "leaky", map[string]any{}); err != nil {
				t.Fatal(err)
			}
		}()
		if replace {
			q := native.New(abi.ProviderInfo{ID: "org.probe.leak"})
			q.MustRegister(abi.ToolDef{Name: "leaky", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "new", nil })
			if err := te.h.ReplaceProvider(context.Background(), q, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
				t.Fatal(err)
			}
		} else if err := te.h.RemoveProvider("org.probe.leak"); err != nil {
			t.Fatal(err)
		}
		if !collectedWithin(collected, 30*time.Second) {
			t.Errorf("replace=%v: the removed provider (and its 8 MiB) is still reachable", replace)
		}
		if replace {
			_ = te.h.RemoveProvider("org.probe.leak")
		}
	}
}

// The "deprecation logged once" set is keyed by registry entry: every
// deprecated tool version called once kept its provider (and its
// implementation) reachable for the life of the host, across every reload.
func TestDeprecationSetReleasesRemovedProvider(t *testing.T) {
	te := newTestHost(t, nil)
	collected := make(chan struct{})
	func() {
		big := make([]byte, 8<<20)
		runtime.AddCleanup(&big[0], func(ch chan struct{}) { close(ch) }, collected)
		p := native.New(abi.ProviderInfo{ID: "org.probe.dep"})
		p.MustRegister(abi.ToolDef{Name: "dep", Version: "1.0.0", Deprecated: true},
			func(context.Context, any, abi.Env) (any, error) { return len(big), nil })
		if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
			t.Fatal(err)
		}
		if _, err := te.call("alice", "dep", map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}()
	if err := te.h.RemoveProvider("org.probe.dep"); err != nil {
		t.Fatal(err)
	}
	if !collectedWithin(collected, 30*time.Second) {
		t.Error("the removed provider of a deprecated tool (and its 8 MiB) is still reachable")
	}
}

// collectedWithin collects every 10 ms until collected is closed (by a
// cleanup) or d has passed. Cleanups run on a goroutine of their own
// after a collection, which a loaded machine (-race, 2 busy cores) may
// run long after the 20 collections of 10 ms these tests waited before;
// d only bounds the wait for what is reachable.
func collectedWithin(collected <-chan struct{}, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); {
		runtime.GC()
		select {
		case <-collected:
			return true
		case <-time.After(10 * time.Millisecond):
		}
	}
	return false
}

// A client's own depth (a remote host forwarding its call sends depth+1)
// does not make the call one of this host's nested calls: a refusal names
// the agent's own grants and config key, not "a nested call holds only
// what both its caller and its provider hold".
func TestClientDepthIsNotNested(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["peer"] = config.Agent{Grants: []string{"CallTool(echo)"}, MaxPermission: "public"}
	})
	_, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "bob", Tool: "needs-secret", Depth: 1})
	if err == nil || strings.Contains(err.Error(), "nested") {
		t.Errorf("capability refusal of a client's depth-1 call: %v", err)
	}
	_, err = te.h.Call(context.Background(), &abi.ToolCall{Caller: "peer", Tool: "echo", Depth: 2, Params: map[string]any{"msg": "x"}})
	if err == nil || strings.Contains(err.Error(), "nested") || !strings.Contains(err.Error(), "agents.peer.max_permission") {
		t.Errorf("permission refusal of a client's depth-2 call: %v", err)
	}
}

// Trust level names are case-insensitive in the config (trust.unsigned,
// trust.folders, providers.<id>.trust, and the validator accepts
// trust.caps.community), but the host looked trust.caps up by the exact
// name: caps written as "community" were ignored and the level kept its
// defaults (ReadSpace(*), WriteSpace(*), Inference).
func TestTrustCapsLevelCase(t *testing.T) {
	cfg, err := config.Parse([]byte("trust:\n  caps:\n    community: [\"CallTool(*)\"]\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Data = t.TempDir()
	h, err := New(Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	p := native.New(abi.ProviderInfo{ID: "org.probe.comm", Capabilities: []string{"ReadSpace(*)", "CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "t", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	rec := h.Registry().Provider("org.probe.comm")
	if rec == nil {
		t.Fatal("not registered")
	}
	if rec.Grants.Allows(abi.MustCapability("ReadSpace(x)")) {
		t.Errorf("trust.caps.community [CallTool(*)] ignored: Community provider holds %v", rec.Grants.Strings())
	}
}

// rate_limits.per_tool is "by tool name or pattern" (config/example.yaml;
// the validator accepts * and ?), but the host looked limits up by exact
// name: a pattern limited nothing. A pattern gives each tool it matches a
// bucket of its own; an exact name wins over patterns.
func TestPerToolRatePattern(t *testing.T) {
	slow := config.Rate{PerSecond: 0.001, Burst: 2}
	te := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerTool = map[string]config.Rate{"who*": slow, "ech?": slow, "echo": {PerSecond: 1000, Burst: 1000}}
	})
	for i := range 2 {
		if _, err := te.call("alice", "whoami", nil); err != nil {
			t.Fatalf("call %d within the burst: %v", i, err)
		}
	}
	if _, err := te.call("alice", "whoami", nil); abi.CodeOf(err) != abi.RateLimited || !strings.Contains(err.Error(), "tool whoami") {
		t.Fatalf("third call of whoami under per_tool who*: %v", err)
	}
	for i := range 5 { // echo's own limit wins over ech?
		if _, err := te.call("alice", "echo", map[string]any{"msg": "x"}); err != nil {
			t.Fatalf("echo call %d: %v", i, err)
		}
	}
}

// Env.CallTool takes a nil context as the call's own; Env.Complete
// panicked on one (context.WithTimeout of nil) and the call crashed.
func TestCompleteNilContext(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) { c.Inference.URL = "http://127.0.0.1:1" }) // nothing listens
	p := native.New(abi.ProviderInfo{ID: "org.probe.nilctx", Capabilities: []string{"Inference"}})
	p.MustRegister(abi.ToolDef{Name: "nilctx", Version: "1.0.0"},
		func(_ context.Context, _ any, env abi.Env) (any, error) {
			r, err := env.Complete(nil, abi.CompleteRequest{Prompt: "hi"}) //nolint:staticcheck
			return r.Text, err
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	_, err := te.call("alice", "nilctx", map[string]any{})
	if code := abi.CodeOf(err); code != abi.Unavailable {
		t.Errorf("Complete(nil ctx), backend unreachable: %v, want Unavailable", err)
	}
}
