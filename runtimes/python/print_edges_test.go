package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

const printer = `from aios_sdk import tool

@tool(name="ok")
def ok(params):
    return {"ok": True}

@tool(name="say")
def say(params):
    print("said " + params["word"])
    return "ok"

@tool(name="say-then-spin")
def say_then_spin(params):
    print("before the loop " + params["word"])
    while True:
        pass
`

// waitStderrLine waits up to d for a "python stderr" record whose line is
// want.
func waitStderrLine(t *testing.T, c *captureHandler, want string, d time.Duration) {
	t.Helper()
	end := time.Now().Add(d)
	for {
		for _, r := range c.records("python stderr") {
			if r.attrs["line"] == want {
				return
			}
		}
		if time.Now().After(end) {
			t.Fatalf("the line %q a tool printed was not logged within %v", want, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPrintLoggedWhileWorkerLives: print() of a tool (sys.stdout, which the
// worker points at its stderr) was block-buffered, as Python buffers a
// stdout that is no terminal: a line printed by a call that returned was
// logged only once 8 KiB had gathered or the worker exited, and one
// printed before a loop the deadline stopped was lost with the killed
// worker, where docs/python.md says the host logs print() line by line.
// Now sys.stdout (and sys.stderr, block-buffered before Python 3.9) are
// line-buffered: each line reaches the host log as it is printed.
func TestPrintLoggedWhileWorkerLives(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "printer.py", printer)
	if _, err := call(h, "say", map[string]any{"word": "hello"}, 0); err != nil {
		t.Fatal(err)
	}
	waitStderrLine(t, capt, "said hello", 10*time.Second)

	_, err := call(h, "say-then-spin", map[string]any{"word": "spinning"}, 2*time.Second)
	wantCode(t, err, abi.Timeout)
	waitStderrLine(t, capt, "before the loop spinning", 10*time.Second)
	stillServes(t, h, "a print before a loop the deadline stopped")
}
