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

func TestToolErrorNoneCodeNamed(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "codes.py", probeNoneCodeSrc)
	_, err := call(h, "none-code", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "none code", `"None"`, "not one of the ABI's")
	_, err = call(h, "empty-code", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "empty code", `""`, "not one of the ABI's")
}

// A tool file that closes file descriptors 0–2 at import (a daemonising
// idiom) loads and serves; but when its worker exited (sys.exit(3) in a
// tool) Python could not flush stdout and ended with status 120 instead of
// 3, so the call's ProviderCrashed said only "exited: exit status 120",
// with no traceback (stderr is closed too). The worker drops a standard
// stream it cannot flush before it exits, so the tool's status is the
// one reported; and a 120 that still happens (a stream whose flush fails
// at exit, set by an atexit handler) is explained.
const probeClosedFDsSrc = `
import atexit, os, sys
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def bye(params):
    os.close(0)
    os.close(1)
    os.close(2)
    print("to a closed stdout", end="")  # no newline: still buffered at exit (print() is line-buffered)
    sys.exit(3)

class Broken:
    def write(self, s):
        return len(s)
    def flush(self):
        raise OSError(9, "Bad file descriptor")

@tool
def bye_broken(params):
    atexit.register(lambda: setattr(sys, "stdout", Broken()))
    sys.exit(4)
`

func TestExitStatus120Explained(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "fds.py", probeClosedFDsSrc)
	_, err := call(h, "bye", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "exit status 3")
	stillServes(t, h, "a worker that closed fds 0-2 and exited")
	_, err = call(h, "bye-broken", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "exit status 120", "flush", "file descriptor 1 or 2")
}
