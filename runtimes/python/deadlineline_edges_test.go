package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A call that ran past its deadline (a CPU hog, a loop that never ends, a
// sleep, an async tool that never awaits) failed Timeout "tool spin: the
// deadline passed; python worker … killed and replaced", naming no line:
// the operator could not tell where the tool was stuck. The host asks the
// worker for its stack as the deadline passes (faulthandler) and names the
// line the tool ran at, the innermost of its folder.
func TestDeadlineNamesLine(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	loadTool(t, h, "hogs.py", `import time
from aios_sdk import tool

def burn():
    while True:
        pass

@tool()
def spin(params):
    burn()

@tool()
def nap(params):
    time.sleep(60)

@tool()
async def hog(params):
    while True:
        pass
`)
	for tool, want := range map[string]string{"spin": "hogs.py:5", "nap": "hogs.py:14", "hog": "hogs.py:18"} {
		start := time.Now()
		_, err := call(h, tool, map[string]any{}, 1500*time.Millisecond)
		wantCode(t, err, abi.Timeout, "tool "+tool+": the deadline passed while it ran at "+want+";")
		t.Logf("%s: %v after %v", tool, err, time.Since(start))
	}
}
