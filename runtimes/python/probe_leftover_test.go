package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// ToolError(None, "x") (a code looked up in a table that lacked it) and
// ToolError("", "x") failed the call with a plain ProviderError "x", as if
// the tool had meant it, while ToolError(404, "x") is named as a code that
// is not the ABI's. A code given but empty or None is named the same way.
const probeNoneCodeSrc = `
from aios_sdk import tool, ToolError

@tool
def none_code(params):
    raise ToolError(None, "none code")

@tool
def empty_code(params):
    raise ToolError("", "empty code")
`

func TestProbeToolErrorNoneCodeNamed(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "codes.py", probeNoneCodeSrc)
	_, err := call(h, "none-code", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "none code", `"None"`, "not one of the ABI's")
	_, err = call(h, "empty-code", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "empty code", `""`, "not one of the ABI's")
}

// A tool file that closes file descriptors 0–2 at import (a daemonising
// idiom) loads and serves; but when its worker exits (sys.exit in a tool)
// Python cannot flush stdout and ends with status 120, so the call's
// ProviderCrashed said only "exited: exit status 120", with no traceback
// (stderr is closed too). The status is explained.
const probeClosedFDsSrc = `
import os, sys
os.close(0)
os.close(1)
os.close(2)
from aios_sdk import tool

@tool
def ok(params):
    print("to a closed stdout")
    return {"ok": True}

@tool
def bye(params):
    sys.exit(3)
`

func TestProbeExitStatus120Explained(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "fds.py", probeClosedFDsSrc)
	stillServes(t, h, "closing fds 0-2")
	_, err := call(h, "bye", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "exit status 120", "flush", "file descriptor 1 or 2")
}
