package python_test

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestOsExitAtImportNamesLine: a tool file calling os._exit(0) at import
// (which skips every handler, so no SystemExit is raised) failed the load
// with "the python worker exited before registering (exit status 0)",
// naming no line, where sys.exit at import names it and os._exit in a call
// names the tool and line. The worker now writes on stderr, which the load
// error quotes, that the tool file called os._exit and where.
func TestOsExitAtImportNamesLine(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	src := "from aios_sdk import tool\nimport os\nos._exit(0)\n@tool\ndef a(params): return 1\n"
	_, err := h.LoadFile(context.Background(), writeTool(t, "osexit.py", src), host.ProviderMeta{Trust: abi.System})
	checkLoadErr(t, err, []string{"exited before registering (exit status 0)", "the tool file called os._exit(0) at osexit.py:3 while loading"})
}
