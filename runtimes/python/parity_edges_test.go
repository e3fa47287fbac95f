package python_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestExceptionStackLikeJS: a tool that throws is ProviderError
// "Name: message (at file:line)" in both scripting runtimes, but only
// JS gave the caller data {"name", "stack"}; a Python tool's exception came
// with no data, so a caller (or the audit log) had the innermost line and
// nothing of the path to it. It now carries data {"name": "ValueError",
// "stack": "ValueError: bad\n\tat inner (t.py:7)\n\tat tool (t.py:11)"},
// innermost first as JS prints it, the frames of the tool's folder only,
// by base name (no host paths, no SDK frames).
func TestExceptionStackLikeJS(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	loadTool(t, h, "thrower.py", `from aios_sdk import Agent, tool


@Agent(id="org.probe.thrower")
class T:
    def inner(self, x):
        raise ValueError("bad " + x)

    @tool(name="throw", parameters={"type": "object"})
    def throw(self, params):
        return self.inner("value")
`)
	_, err := call(h, "throw", map[string]any{}, 10*time.Second)
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.ProviderError || te.Message != "ValueError: bad value (at thrower.py:7)" {
		t.Fatalf("err = %v; want ProviderError \"ValueError: bad value (at thrower.py:7)\"", err)
	}
	data, _ := te.Data.(map[string]any)
	want := "ValueError: bad value\n\tat inner (thrower.py:7)\n\tat throw (thrower.py:11)"
	if data["name"] != "ValueError" || data["stack"] != want {
		t.Errorf("data = %#v; want name ValueError and stack %q", te.Data, want)
	}
	if s, _ := data["stack"].(string); strings.Contains(s, string(filepath.Separator)) || strings.Contains(s, "_worker") {
		t.Errorf("the stack names host folders or SDK frames: %q", s)
	}
}
