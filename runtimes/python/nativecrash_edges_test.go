package python_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
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

// TestNativeCrashAtImportNamesLine: native code crashing the worker while
// the tool file imported failed the load "the python worker exited before
// registering (signal: segmentation fault)" with nothing on stderr; the
// load error names the line, as a call's crash does.
func TestNativeCrashAtImportNamesLine(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	_, err := h.LoadFile(context.Background(), writeTool(t, "segimport.py", `import ctypes
from aios_sdk import tool

ctypes.string_at(0)

@tool
def ok(params):
    return {"ok": True}
`), host.ProviderMeta{Source: "segimport.py", Trust: abi.System})
	if err == nil || !strings.Contains(err.Error(), "signal: segmentation fault (native code called at segimport.py:4 crashed") {
		t.Fatalf("load of a file crashing in native code: %v", err)
	}
}
