package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

const nestedTimeoutSrc = `
from aios_sdk import Agent, tool, Capability

@Agent(name="Outer", capabilities=[Capability.CallTool("*")])
class Outer:
    @tool(name="outer", parameters={})
    async def outer(self, params, ctx):
        return await ctx.call_tool("slow-inner", {})
`

// TestNestedTimeoutNamesPendingCall: a Python tool whose deadline passed
// while it awaited ctx.call_tool ended with "tool outer: the deadline
// passed; python worker … killed", not saying that it waited for a nested
// call nor which one (which hop of a chain js → python → wasm was slow).
// Now the message names the host calls in flight: call_tool("slow-inner").
func TestNestedTimeoutNamesPendingCall(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	release := make(chan struct{})
	defer close(release)
	slow := native.New(abi.ProviderInfo{ID: "org.probe.slow"})
	slow.MustRegister(abi.ToolDef{Name: "slow-inner", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		// Past the deadline: a native tool that does not honour ctx
		// keeps its host call in flight when the worker is interrupted.
		select {
		case <-release:
		case <-time.After(30 * time.Second):
		}
		return nil, ctx.Err()
	})
	if err := h.AddProvider(context.Background(), slow, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	loadTool(t, h, "outer.py", nestedTimeoutSrc)
	done := make(chan error, 1)
	go func() {
		_, err := call(h, "outer", map[string]any{}, 3*time.Second)
		done <- err
	}()
	select {
	case err := <-done:
		wantCode(t, err, abi.Timeout, "tool outer", `call_tool("slow-inner")`)
	case <-time.After(25 * time.Second):
		t.Fatal("outer did not end at its deadline")
	}
}
