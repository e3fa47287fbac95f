package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
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

@tool(name="fdok")
def fdok(params):
    return os.chdir in os.supports_fd
`)
	start, err := call(h, "where", map[string]any{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if start == "/" {
		t.Skip("the worker starts in /: the test cannot tell a move")
	}
	// Code asking whether os.chdir takes a descriptor is still told so.
	if v, err := call(h, "fdok", map[string]any{}, 0); err != nil || v != true {
		t.Errorf("os.chdir in os.supports_fd: %v %v, want True", v, err)
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

// TestExceptionCauseInMessage: a tool raising its own error from another
// (raise ValueError(...) from e) failed with a message naming the outer
// exception alone: what the KeyError said, and where, was lost (found by
// p168). The causes are named, with their lines; an exception raised
// while another was handled, not from it, names no other.
func TestExceptionCauseInMessage(t *testing.T) {
	h, _ := newCapturingHost(t, nil)
	loadTool(t, h, "cause.py", `from aios_sdk import tool

@tool(name="wrapped")
def wrapped(params):
    try:
        return {}["price"]
    except KeyError as e:
        raise ValueError("no price in the order") from e

@tool(name="during")
def during(params):
    try:
        return {}["price"]
    except KeyError:
        raise ValueError("unrelated")
`)
	_, err := call(h, "wrapped", map[string]any{}, 0)
	if err == nil || !strings.Contains(err.Error(), "ValueError: no price in the order (caused by KeyError: 'price' at cause.py:6) (at cause.py:8)") {
		t.Errorf("wrapped: %v, want the cause named with its line", err)
	}
	_, err = call(h, "during", map[string]any{}, 0)
	if err == nil || strings.Contains(err.Error(), "caused by") || !strings.Contains(err.Error(), "ValueError: unrelated (at cause.py:15)") {
		t.Errorf("during: %v, want the ValueError alone", err)
	}
}

// TestSpaceArgumentsTyped: ctx.spaces.write(None, data) failed "empty
// space name", naming neither the argument nor its type (the host read
// null as ""; found by p175). A space or object id that is not a string
// is refused InvalidParams naming it, null too; read's space=None still
// means every space.
func TestSpaceArgumentsTyped(t *testing.T) {
	h, _ := newCapturingHost(t, nil)
	loadTool(t, h, "spacetypes.py", `from aios_sdk import tool, ToolError

@tool(name="bad")
def bad(params, ctx):
    out = []
    for f in (lambda: ctx.spaces.write(None, b"x").wait(), lambda: ctx.spaces.read(None).wait(),
              lambda: ctx.spaces.read("sha256:" + "0" * 64, space=None).wait()):
        try:
            f()
            out.append("no error")
        except ToolError as e:
            out.append("%s: %s" % (e.code, e.message))
    return out
`)
	v, err := call(h, "bad", map[string]any{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := v.([]any)
	want := []string{`InvalidParams: space_write: "space" must be a string, not null`, `InvalidParams: space_read: "id" must be a string, not null`,
		"no space is readable"} // space=None: every space the call may read (none here), no type error
	if len(got) != len(want) {
		t.Fatalf("got %v", v)
	}
	for i, w := range want {
		if s, _ := got[i].(string); !strings.Contains(s, w) {
			t.Errorf("case %d: %q, want …%s…", i, got[i], w)
		}
	}
}

// TestDeprecationMisspeltMemberRefused: @tool(deprecation={"since": …,
// "replacment": …}) loaded, the misspelt member kept and ignored: callers
// were told the tool is deprecated and nothing of what replaces it (found
// by p179; the JS SDK refuses it). It fails the load naming the member
// meant.
func TestDeprecationMisspeltMemberRefused(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	_, err := h.LoadFile(context.Background(), writeTool(t, "dep.py", `from aios_sdk import tool

@tool(deprecation={"since": "1.0.0", "replacment": "new"})
def old(params):
    return 1
`), host.ProviderMeta{Source: "dep.py", Trust: abi.System})
	if err == nil || !strings.Contains(err.Error(), `unknown option 'replacment' (did you mean replacement?)`) {
		t.Errorf("a deprecation with a misspelt member: %v, want the load refused naming replacement", err)
	}
}
