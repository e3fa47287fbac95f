package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestToolTwiceOnOneFunctionRefused: a second @tool over a function that
// is already a tool (@tool(name="x") over @tool(name="y"), or
// tool(name="b")(f) to give f a second name) replaced the first
// definition: the load kept one tool and the other went missing without a
// word. It fails the load at the line, naming both names.
func TestToolTwiceOnOneFunctionRefused(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, want string }{
		{"stacked.py", "from aios_sdk import tool\n\n@tool(name='x')\n@tool(name='y')\ndef f(params):\n    return 1\n",
			"stacked.py:3: ValueError while loading: @tool x: f is already the tool 'y'"},
		{"renamed.py", "from aios_sdk import tool\n\n@tool(name='a')\ndef f(params):\n    return 1\n\ng = tool(name='b')(f)\n",
			"renamed.py:7: ValueError while loading: @tool b: f is already the tool 'a'"},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil {
			t.Errorf("%s loaded; want %q", tc.name, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant it to contain %q", tc.name, err, tc.want)
		}
	}
}
