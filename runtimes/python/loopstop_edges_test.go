package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestToolStoppingEventLoopNamed: an async tool that stops the asyncio
// loop its call runs on (asyncio.get_running_loop().stop()) failed with
// asyncio's "RuntimeError: Event loop stopped before Future completed.",
// naming no line and not that the tool stopped it (found by p178). Now
// the error says so, with the line of the stop; the worker serves on.
func TestToolStoppingEventLoopNamed(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "stopper.py", `import asyncio
from aios_sdk import tool

def halt():
    asyncio.get_running_loop().stop()

@tool
async def stopper(params):
    halt()
    await asyncio.sleep(0)
    return 1

@tool
async def sleeper(params):
    await asyncio.sleep(0.01)
    return 2

@tool
def ok(params):
    return {"ok": True}
`)
	for range 2 {
		_, err := call(h, "stopper", map[string]any{}, 10*time.Second)
		wantCode(t, err, abi.ProviderError, "the tool stopped the worker's asyncio event loop (loop.stop() at stopper.py:5)")
		if v, err := call(h, "sleeper", map[string]any{}, 10*time.Second); err != nil || v != int64(2) {
			t.Fatalf("an async call after the stop: %v %v", v, err)
		}
	}
	stillServes(t, h, "a tool stopped the event loop")
}
