package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A tool that calls sys.exit ends its worker (docs/python.md "Failures"),
// but the call's ProviderCrashed said only "exited: exit status 3" (or
// "exit status 0" for sys.exit() and sys.exit(0)): nothing named the tool,
// the call to sys.exit or the line of it, where an exception names its
// file:line and sys.exit at import says "the tool file called sys.exit(N)".
const probeSysExitSrc = `
import sys
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def quit3(params):
    sys.exit(3)

@tool
def quit0(params):
    raise SystemExit

@tool
async def aquit(params):
    import asyncio
    await asyncio.sleep(0)
    sys.exit(4)
`

func TestSysExitInToolNamed(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "quits.py", probeSysExitSrc)
	_, err := call(h, "quit3", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "exit status 3", "tool quit3 called sys.exit(3) at quits.py:11")
	stillServes(t, h, "sys.exit(3)")
	_, err = call(h, "quit0", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "exit status 0", "tool quit0 called sys.exit(None) at quits.py:15")
	stillServes(t, h, "raise SystemExit")
	_, err = call(h, "aquit", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "exit status 4", "tool aquit called sys.exit(4) at quits.py:21")
	stillServes(t, h, "sys.exit(4) in an async tool")
}
