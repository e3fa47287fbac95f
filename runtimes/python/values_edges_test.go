package python_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

const probeDeepArgsSrc = `
from aios_sdk import tool, provider, Capability

provider(capabilities=[Capability.CallTool("*")])

@tool
def ok(params):
    return {"ok": True}

@tool
def peer(params):
    return {"got": True}

@tool
def nest(params, ctx):
    v = "leaf"
    for _ in range(params["n"]):
        v = [v]
    try:
        return ctx.call_tool("peer", {"value": v}).wait()
    except ValueError as e:
        return {"refused": str(e)}
`

// TestDeepHostCallArgs: call_tool params as deep as the host takes
// (a value nested at most 512 levels, the params being level 0 as
// in-process: params.value 511 arrays deep) are sent in both wire formats,
// and deeper ones are a ValueError in the tool saying so, in both, the
// worker living on. Over MessagePack the packer's own limit (it counts the
// envelope) refused 508 levels and more with "ValueError: recursion limit
// exceeded."; over JSON deeper params were sent, and the host, refusing
// the frame, killed the worker (ProviderCrashed).
func TestDeepHostCallArgs(t *testing.T) {
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
			h := newHost(t, rt)
			p := loadTool(t, h, "deep.py", probeDeepArgsSrc).(*python.Provider)
			pids := p.WorkerPIDs()
			for n := 505; n <= 513; n++ {
				got, err := call(h, "nest", map[string]any{"n": int64(n)}, 20*time.Second)
				var want any = map[string]any{"got": true}
				if n > 511 {
					want = map[string]any{"refused": "call_tool arguments nested deeper than 512 levels (the host's limit); pass them flatter or as a string"}
				}
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("n=%d: %v (%v), want %v", n, got, abi.CodeOf(err), want)
					if err != nil {
						t.Logf("%v", err)
					}
				}
			}
			// (peer runs on a second worker: the first one waits in nest.)
			// WorkerPIDs has no order: the first worker must be among them.
			if got := p.WorkerPIDs(); len(pids) == 0 || !slices.Contains(got, pids[0]) {
				t.Fatalf("the worker %v was replaced: %v", pids, got)
			}
		})
	}
}
