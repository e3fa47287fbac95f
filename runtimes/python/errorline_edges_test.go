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
