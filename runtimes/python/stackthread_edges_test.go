package python_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A tool that blocked signals in the thread running its call (as code
// that must not be interrupted does) while another thread of its file ran
// (a helper it started) timed out "the deadline passed while it ran at
// threads.py:8", the helper thread's line: the host's SIGUSR2 reached the
// helper, and faulthandler wrote the stack of the thread it reached alone.
// The host signals the main thread, which runs the calls: while it blocks
// the signal no stack comes and no line is named.
func TestDeadlineLineNotFromAnotherThread(t *testing.T) {
	rt := newRuntime(t, nil)
	// Long enough for a stack that comes (the helper's did at once), the
	// wait running out as none comes.
	python.SetStackWait(rt, 3*time.Second)
	h := newHost(t, rt)
	loadTool(t, h, "threads.py", `import signal, threading, time
from aios_sdk import tool

def helper():
    while True: time.sleep(0.01)  # noqa: E701 (one line: the loop is at line 5)

@tool()
def spin(params):
    threading.Thread(target=helper, daemon=True).start()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2, signal.SIGTERM})
    while True: pass  # noqa: E701
`)
	_, err := call(h, "spin", map[string]any{}, 1500*time.Millisecond)
	wantCode(t, err, abi.Timeout, "tool spin: the deadline passed")
	if strings.Contains(err.Error(), "threads.py:5") {
		t.Fatalf("%v: names the line of another thread than the call's", err)
	}
}
