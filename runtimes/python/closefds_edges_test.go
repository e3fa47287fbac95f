package python_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A tool that closes every descriptor above stderr (os.closerange(3, …),
// as daemon-style code does) closes the worker's pipe to the host too. The
// call's ProviderCrashed was the SDK's own traceback ending "OSError:
// [Errno 9] Bad file descriptor" in _write_frame, which read as a bug of
// aios_sdk and said nothing of what the tool did. Now the worker says that
// the tool closed its pipe to the host, and the worker is replaced.
const probeCloseFDsSrc = `
import os
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def closeall(params):
    os.closerange(3, 4096)
    return "closed"

@tool
async def closecall(params, ctx):
    os.closerange(3, 4096)
    return await ctx.call_tool("ok", {})
`

func TestToolClosingWorkerPipeSaysSo(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "fds.py", probeCloseFDsSrc)
	_, err := call(h, "closeall", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "tool closeall closed the python worker's pipe to the host")
	if err != nil && strings.Contains(err.Error(), "Traceback") {
		t.Errorf("the crash shows the SDK's traceback: %v", err)
	}
	stillServes(t, h, "a tool closed the worker's pipe")
	_, err = call(h, "closecall", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "tool closecall closed the python worker's pipe to the host")
	stillServes(t, h, "a tool closed the worker's pipe before a host call")
}
