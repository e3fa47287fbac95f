package python_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/python"
	pysdk "github.com/aios-host/aios-host/sdk/python"
)

const probePoolSrc = `
import time
from aios_sdk import tool

@tool
def nap(params):
    time.sleep(params.get("s", 0))
    return {"ok": True}
`

// TestPoolWaitTimeoutNamesKey: a call that waits for a worker of a
// full pool until its deadline gets Timeout naming
// runtimes.python.pool_size (as wasm's names runtimes.wasm.pool_size).
func TestPoolWaitTimeoutNamesKey(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "pool.py", probePoolSrc)
	if _, err := call(h, "nap", map[string]any{}, 10*time.Second); err != nil { // the worker is up
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := call(h, "nap", map[string]any{"s": 0.8}, 10*time.Second)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	_, err := call(h, "nap", map[string]any{}, 150*time.Millisecond)
	wantCode(t, err, abi.Timeout, "runtimes.python.pool_size", "nap")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

const probeNestedLimitSrc = `
from aios_sdk import tool, provider, Capability, ToolError

provider(capabilities=[Capability.CallTool("*")])

@tool
def target(params):
    return {"ok": True}

@tool
async def caller(params, ctx):
    try:
        await ctx.call_tool("target", {})
    except ToolError as e:
        return {"code": e.code, "limited": e.code == ToolError.RateLimited,
                "retry": (e.data or {}).get("retry_after_ms", -1),
                "known": [ToolError.ProviderCrashed, ToolError.Cancelled, ToolError.DepthExceeded,
                          ToolError.Conflict, ToolError.InvalidRequest, ToolError.Internal]}
    return {"code": ""}
`

// TestNestedRateLimitedInPython: a Python tool's nested call refused
// by a rate limit raises ToolError with code RateLimited and the retry
// hint in e.data, and ToolError has a constant for every code of the ABI:
// ToolError.RateLimited (and Cancelled, ProviderCrashed, …) raised
// AttributeError, failing the very handler written to back off.
func TestNestedRateLimitedInPython(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHostWith(t, rt, func(c *config.Config) {
		c.RateLimits.PerTool = map[string]config.Rate{"target": {PerSecond: 0.5, Burst: 1}}
	})
	loadTool(t, h, "nestlimit.py", probeNestedLimitSrc)
	if _, err := call(h, "target", map[string]any{}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	v, err := call(h, "caller", map[string]any{}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["code"] != "RateLimited" || m["limited"] != true {
		t.Fatalf("caller = %v", m)
	}
	if r, _ := m["retry"].(int64); r < 1000 || r > 2000 {
		t.Fatalf("retry_after_ms seen by the guest = %v, want about 2000", m["retry"])
	}
}

// TestSDKHasEveryCode: the SDK's ToolError names every code of the
// ABI (abi.KnownCodes) as a constant, so the list cannot fall behind again.
func TestSDKHasEveryCode(t *testing.T) {
	src, err := pysdk.Files.ReadFile("aios_sdk/_core.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range abi.KnownCodes {
		if !strings.Contains(string(src), "    "+string(c)+" = \""+string(c)+"\"\n") {
			t.Errorf("aios_sdk.ToolError has no constant %s", c)
		}
	}
}
