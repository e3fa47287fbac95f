package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestMemoryErrorOfGrowingListNamesLine: a tool that grows a list of small
// pieces until the memory limit (the commonest memory bomb) held every
// piece through the MemoryError's traceback while the worker answered, so
// the answer could not be packed (msgpack's "Unable to allocate internal
// buffer") and the worker died with a traceback of the SDK's own frames:
// ProviderCrashed "exit status 1", where docs/python.md "Failures" promises
// the call's ProviderError "MemoryError in tool X at file.py:LINE". The
// tool's frames are cleared before the answer is written: a ProviderError
// naming the line, in both wire formats, sync, async or on asyncio's loop, and the provider
// serves on.
func TestMemoryErrorOfGrowingListNamesLine(t *testing.T) {
	for _, wf := range []string{"msgpack", "json"} {
		t.Run(wf, func(t *testing.T) {
			h := newHost(t, newRuntime(t, func(c *python.Config) { c.MemoryMB = 256; c.PoolSize = 1; c.Wire = wf }))
			loadTool(t, h, "hoard.py", `from aios_sdk import tool

@tool(name="grow")
def grow(params):
    hoard = []
    while True:
        hoard.append("x" * 50000)

@tool(name="agrow")
async def agrow(params, ctx):
    hoard = []
    while True:
        hoard.append(bytearray(30000))

@tool(name="ok")
def ok(params):
    return {"ok": True}
`)
			loadTool(t, h, "hoard_aio.py", `import asyncio
from aios_sdk import tool

@tool(name="aiogrow")
async def aiogrow(params, ctx):
    await asyncio.sleep(0)
    hoard = []
    while True:
        hoard.append("y" * 40000)
`)
			for _, c := range []struct{ tool, line string }{{"grow", "hoard.py:7"}, {"agrow", "hoard.py:13"}, {"aiogrow", "hoard_aio.py:9"}} {
				for i := 0; i < 2; i++ {
					_, err := call(h, c.tool, map[string]any{}, 60*time.Second)
					wantCode(t, err, abi.ProviderError, "MemoryError in tool "+c.tool+" at "+c.line+": out of memory", "256 MiB")
					stillServes(t, h, "a MemoryError in "+c.tool)
				}
			}
		})
	}
}
