package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
	"github.com/aios-host/aios-host/runtimes/python"
)

const probeChainSelfSrc = `
from aios_sdk import tool, provider, Capability
provider(capabilities=[Capability.CallTool("*")])

@tool
def inner(params):
    return {"inner": params.get("n")}

@tool
def outer(params, ctx):
    r = ctx.call_tool("relay", {"tool": "inner", "params": {"n": 7}}).wait()
    return {"got": r["inner"]}
`

// TestCallBackThroughAnotherProvider: a Python tool calling a tool
// of another provider (here a native relay; any runtime) that calls back
// into the Python provider (outer → relay → inner) with a pool of one
// waited until the deadline for the worker that waits for it ('the
// deadline passed; python worker … killed'): only a nested call whose
// caller was the Python provider itself got a worker beyond the pool. A
// call that comes back along its own chain of calls gets one too.
func TestCallBackThroughAnotherProvider(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	relay := native.New(abi.ProviderInfo{ID: "org.probe.relay", Capabilities: []string{"CallTool(*)"}})
	relay.MustRegister(abi.ToolDef{Name: "relay", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		m := params.(map[string]any)
		return env.CallTool(ctx, m["tool"].(string), "", m["params"])
	})
	if err := h.AddProvider(context.Background(), relay, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	loadTool(t, h, "chain.py", probeChainSelfSrc)
	for i := range 2 {
		start := time.Now()
		v, err := call(h, "outer", map[string]any{}, 6*time.Second)
		if err != nil {
			t.Fatalf("call %d: outer → relay → inner, pool of 1: %v after %v", i, err, time.Since(start).Round(time.Millisecond))
		}
		if got := v.(map[string]any)["got"]; got != int64(7) {
			t.Fatalf("call %d: got %#v, want 7", i, got)
		}
	}
}
