package host

import (
	"context"
	"fmt"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestToolBucketsOfGoneToolsReleased: a rate_limits.per_tool key with a
// wildcard gives each tool it matches a bucket of its own, made at the
// tool's first call (policy.patLims). The buckets were never released: a
// host whose plugins came and went under new tool names (a folder of
// generated tools, an MCP server naming its tools per session, renames
// over weeks) kept one for every name ever called, growing with the
// reloads until it restarted (found by p152). A tool's bucket is released
// when no provider registers that name any more (removed, or reloaded
// without it); a tool reloaded under its name keeps its bucket.
func TestToolBucketsOfGoneToolsReleased(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerTool = map[string]config.Rate{"gen-*": {PerSecond: 1000, Burst: 1000}}
	})
	buckets := func() int {
		n := 0
		te.h.pol.patLims.Range(func(_, _ any) bool { n++; return true })
		return n
	}
	// One provider reloaded under its id with a new tool name each time,
	// one added and removed with a tool of its own each time.
	const rounds = 50
	for i := range rounds {
		p := native.New(abi.ProviderInfo{ID: "org.probe.reloaded"})
		p.MustRegister(abi.ToolDef{Name: fmt.Sprintf("gen-r%d", i), Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
		meta := ProviderMeta{Source: "test", Trust: abi.System}
		var err error
		if i == 0 {
			err = te.h.AddProvider(context.Background(), p, meta)
		} else {
			err = te.h.ReplaceProvider(context.Background(), p, meta)
		}
		if err != nil {
			t.Fatal(err)
		}
		q := native.New(abi.ProviderInfo{ID: fmt.Sprintf("org.probe.gone%d", i)})
		q.MustRegister(abi.ToolDef{Name: fmt.Sprintf("gen-g%d", i), Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
		if err := te.h.AddProvider(context.Background(), q, meta); err != nil {
			t.Fatal(err)
		}
		for _, tool := range []string{fmt.Sprintf("gen-r%d", i), fmt.Sprintf("gen-g%d", i)} {
			if _, err := te.call("alice", tool, nil); err != nil {
				t.Fatalf("round %d: %s: %v", i, tool, err)
			}
		}
		if err := te.h.RemoveProvider(q.Info().ID); err != nil {
			t.Fatal(err)
		}
	}
	if n := buckets(); n > 2 {
		t.Fatalf("after %d rounds of tools renamed and removed, %d rate buckets of rate_limits.per_tool[\"gen-*\"] are kept (want at most the 1 tool still registered, and one a call racing a removal may add)", rounds, n)
	}

	// A tool reloaded under its name keeps its bucket: its tokens spent
	// stay spent.
	slow := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerTool = map[string]config.Rate{"gen-*": {PerSecond: 0.001, Burst: 1}}
	})
	for i := range 2 {
		p := native.New(abi.ProviderInfo{ID: "org.probe.kept"})
		p.MustRegister(abi.ToolDef{Name: "gen-kept", Version: fmt.Sprintf("1.0.%d", i)}, func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
		meta := ProviderMeta{Source: "test", Trust: abi.System}
		var err error
		if i == 0 {
			err = slow.h.AddProvider(context.Background(), p, meta)
		} else {
			err = slow.h.ReplaceProvider(context.Background(), p, meta)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, err = slow.call("alice", "gen-kept", nil)
		if i == 0 && err != nil {
			t.Fatal(err)
		}
		if i == 1 && abi.CodeOf(err) != abi.RateLimited {
			t.Fatalf("after a reload under its name, the tool's spent bucket was given back: %v", err)
		}
	}
}
