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

// TestStartupTimeoutNamesKey: a worker that did not start within
// runtimes.python.startup_timeout failed "the python worker did not
// register within 100ms" (or, for one shorter than handing it its pins,
// "sending the python worker its pins: write |1: i/o timeout"), naming
// no setting: the operator of a slow machine could not tell what to
// raise. Both name the key, as the JS runtime's load_timeout does.
func TestStartupTimeoutNamesKey(t *testing.T) {
	for _, tc := range []struct {
		timeout time.Duration
		src     string
	}{
		{2 * time.Second, "import time\nfrom aios_sdk import tool\n\ntime.sleep(60)\n"},
		{time.Nanosecond, "from aios_sdk import tool\n\n@tool()\ndef a(p):\n    return 1\n"},
	} {
		rt := newRuntime(t, func(c *python.Config) { c.StartupTimeout = tc.timeout })
		h := newHost(t, rt)
		_, err := h.LoadFile(context.Background(), writeTool(t, "slow.py", tc.src), host.ProviderMeta{Source: "slow.py", Trust: abi.System})
		want := "within " + tc.timeout.String() + " (runtimes.python.startup_timeout"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("startup_timeout %v: %v, want %q", tc.timeout, err, want)
		}
	}
}
