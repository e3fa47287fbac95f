package python_test

import (
	"testing"
)

// TestChdirDoesNotCarryOver: a call's os.chdir carried over to the
// worker's later calls, which then read relative paths elsewhere,
// depending on which worker served them (found by p168). Each call starts
// in the directory the tool file's import left.
func TestChdirDoesNotCarryOver(t *testing.T) {
	h, _ := newCapturingHost(t, nil) // one worker
	loadTool(t, h, "cwd.py", `import os
from aios_sdk import tool

@tool(name="cd")
def cd(params):
    os.chdir("/")
    return os.getcwd()

@tool(name="fcd")
def fcd(params):
    fd = os.open(os.path.dirname(os.__file__), os.O_RDONLY)
    try:
        os.fchdir(fd)
    finally:
        os.close(fd)
    return os.getcwd()

@tool(name="where")
def where(params):
    return os.getcwd()
`)
	start, err := call(h, "where", map[string]any{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if start == "/" {
		t.Skip("the worker starts in /: the test cannot tell a move")
	}
	for _, mover := range []string{"cd", "fcd"} {
		if v, err := call(h, mover, map[string]any{}, 0); err != nil || v == start {
			t.Fatalf("%s: %v %v, want it moved (the call itself moves)", mover, v, err)
		}
		if v, err := call(h, "where", map[string]any{}, 0); err != nil || v != start {
			t.Errorf("after %s: the next call runs in %v (%v), want %v", mover, v, err, start)
		}
	}
}
