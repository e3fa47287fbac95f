package python_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A tool file whose import outlasted runtimes.python.startup_timeout (a
// sleep, a loop, a slow connection at module level, or in a module of its
// folder it imports) failed "the python worker did not register within 2s
// (a long-running import or a loop at module level?)", naming no line:
// the operator had to guess which statement hung. The host asks the worker
// for its stack at the timeout (faulthandler, as for a native crash) and
// the error names the line the import was at, the innermost of the tool's
// folder.
func TestStartupTimeoutNamesLine(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.StartupTimeout = 2 * time.Second })
	h := newHost(t, rt)
	for _, tc := range []struct{ name, src, want string }{
		{"sleeps.py", "import time\nfrom aios_sdk import tool\n\ntime.sleep(60)\n@tool()\ndef a(p):\n    return 1\n", "sleeps.py:4"},
		{"loops.py", "from aios_sdk import tool\n\ndef wait():\n    while True: pass\n\nwait()\n", "loops.py:4"},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Source: tc.name, Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), "did not register within 2s") || !strings.Contains(err.Error(), "import was at "+tc.want) {
			t.Errorf("%s: %v, want the startup timeout naming the line the import was at, %s", tc.name, err, tc.want)
		}
	}
}
