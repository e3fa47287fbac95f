package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestNativeCrashNamesLine: a tool whose native code crashed the worker (a
// C extension's bug, ctypes reading address 0) failed "python worker (pid
// N) of native.py exited: signal: segmentation fault" and nothing else:
// neither the line of the tool that made the native call nor any trace on
// stderr (Python's faulthandler was off). The worker dumps the Python
// stack on a fatal signal, and the crash names the tool file's line that
// called into native code.
func TestNativeCrashNamesLine(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "native.py", `import ctypes
from aios_sdk import tool

def peek(addr):
    return ctypes.string_at(addr)

@tool
def segv(params):
    return {"v": peek(0).hex()}

@tool
def ok(params):
    return {"ok": True}
`)
	_, err := call(h, "segv", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "tool segv", "signal: segmentation fault", "native code called at native.py:5")
	stillServes(t, h, "a segmentation fault")
}
