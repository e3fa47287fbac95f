package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// A bare @tool over something neither callable nor a str (a @property, a
// functools.cached_property) was taken as @tool(name=<that object>): the
// attribute became the decorator's inner function and the tool was
// missing from the provider without a word. A name that is not a str is a
// load error at the @tool's line, naming what was given.
func TestToolNameNotAString(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := writeTool(t, "prop.py", `
from aios_sdk import Agent, tool

@Agent(id="org.probe.prop")
class C:
    @tool
    @property
    def size(self):
        return 1

    @tool
    def ok(self, params):
        return {"ok": True}
`)
	_, err := h.LoadFile(context.Background(), p, host.ProviderMeta{Source: "prop.py", Trust: abi.System})
	if err == nil {
		t.Fatal("the file loaded; want a load error naming @tool's name")
	}
	for _, s := range []string{"prop.py:6", "@tool: name must be a str", "property"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("load error %q does not contain %q", err, s)
		}
	}
}
