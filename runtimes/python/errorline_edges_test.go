package python_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

const longMessageSrc = `from aios_sdk import tool

@tool(name="ok")
def ok(params):
    return {"ok": True}

@tool(name="long-message")
def long_message(params):
    raise ValueError("bad input " + "x" * 100000)
`

// TestLongExceptionMessageKeepsLine: an exception whose message is longer
// than the 64 KiB a message keeps (a ValueError quoting a large input) lost
// its "(at file.py:LINE)": the location was appended to the whole message
// and then cut off with its tail. Now the exception's text is cut first and
// the location (and any sandbox note) follows the cut, as the stack's head
// is cut.
func TestLongExceptionMessageKeepsLine(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	loadTool(t, h, "longmsg.py", longMessageSrc)
	_, err := call(h, "long-message", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "ValueError: bad input xxx", "characters cut)")
	var te *abi.ToolError
	errors.As(err, &te)
	if !strings.HasSuffix(te.Message, " (at longmsg.py:9)") {
		t.Errorf("the message does not end with the tool's line: ...%q", te.Message[max(0, len(te.Message)-120):])
	}
	if len(te.Message) > 70000 {
		t.Errorf("message of %d bytes, want it cut near 64 KiB", len(te.Message))
	}
	stillServes(t, h, "a long exception message")
}

const stopIterationSrc = `from aios_sdk import tool

@tool(name="ok")
def ok(params):
    return {"ok": True}

def first(items):
    return next(iter(items))

@tool(name="first-of")
async def first_of(params, ctx):
    return first(params["items"])
`

// TestStopIterationInAsyncToolNamesLine: next() on an exhausted iterator in
// an async def tool (StopIteration, which Python turns into "RuntimeError:
// coroutine raised StopIteration" as it leaves the coroutine) failed with
// that message alone, no "(at file.py:LINE)" and no frame in its stack: the
// RuntimeError's traceback holds only the SDK's frames, the tool's are in
// its cause. Now the location and the stack come from the first exception
// of the chain (cause, then context) that has frames of the tool's folder.
func TestStopIterationInAsyncToolNamesLine(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	loadTool(t, h, "stopiter.py", stopIterationSrc)
	_, err := call(h, "first-of", map[string]any{"items": []any{}}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "RuntimeError: coroutine raised StopIteration (at stopiter.py:8)")
	var te *abi.ToolError
	errors.As(err, &te)
	data, _ := te.Data.(map[string]any)
	want := "RuntimeError: coroutine raised StopIteration\n\tat first (stopiter.py:8)\n\tat first_of (stopiter.py:12)"
	if data["stack"] != want {
		t.Errorf("stack %q, want %q", data["stack"], want)
	}
	stillServes(t, h, "a StopIteration in an async tool")
}
