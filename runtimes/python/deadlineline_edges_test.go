package python_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A call that ran past its deadline (a CPU hog, a loop that never ends, a
// sleep, an async tool that never awaits) failed Timeout "tool spin: the
// deadline passed; python worker … killed and replaced", naming no line:
// the operator could not tell where the tool was stuck. The host asks the
// worker for its stack as the deadline passes (faulthandler) and names the
// line the tool ran at, the innermost of its folder.
func TestDeadlineNamesLine(t *testing.T) {
	rt := newRuntime(t, nil)
	python.SetStackWait(rt, 10*time.Second) // the stack comes at once, unless the machine is loaded
	h := newHost(t, rt)
	p := loadTool(t, h, "hogs.py", `import time
from aios_sdk import tool

def burn():
    while True: pass  # noqa: E701 (one line: the loop is at line 5 whichever bytecode runs)
    return

@tool()
def spin(params):
    burn()

@tool()
def nap(params):
    time.sleep(60)

@tool()
async def hog(params):
    while True: pass  # noqa: E701
`)
	for tool, want := range map[string]string{"spin": "hogs.py:5", "nap": "hogs.py:14", "hog": "hogs.py:18"} {
		// The worker the last call's deadline killed is replaced first:
		// on a loaded machine its start outlasted the next call's 1.5 s.
		for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if idle, _ := p.(*python.Provider).PoolStats(); idle > 0 || time.Now().After(end) {
				break
			}
		}
		start := time.Now()
		_, err := call(h, tool, map[string]any{}, 1500*time.Millisecond)
		wantCode(t, err, abi.Timeout, "tool "+tool+": the deadline passed while it ran at "+want+";")
		t.Logf("%s: %v after %v", tool, err, time.Since(start))
	}
}

// A stack the tool itself wrote on stderr earlier (faulthandler.dump_traceback(),
// for debugging) was taken for the one the host asked for at the deadline
// when the tool blocked the signal, naming a line the tool had long left.
// Only a stack written after the host asked counts.
func TestDeadlineLineNotFromOldStack(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	loadTool(t, h, "dumps.py", `import faulthandler, signal, sys
from aios_sdk import tool

@tool()
def spin(params):
    faulthandler.dump_traceback(file=sys.stderr)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})
    while True:
        pass
`)
	_, err := call(h, "spin", map[string]any{}, 1500*time.Millisecond)
	wantCode(t, err, abi.Timeout, "tool spin: the deadline passed")
	if strings.Contains(err.Error(), "dumps.py:6") {
		t.Fatalf("%v: names the line of a stack the tool wrote before the deadline", err)
	}
}
