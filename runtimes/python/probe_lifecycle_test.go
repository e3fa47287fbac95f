package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// A load cancelled while the worker imports (discovery's Close at
// SIGTERM, "Close cancels the loads in flight") ran on until the import
// ended or startup_timeout (10 s) passed: `aios-host run` took 8.9 s to stop
// while a file with a slow module-level import was loading.
func TestProbeLoadHonoursCancel(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	loadTool(t, h, "warm.py", "from aios_sdk import tool\n@tool(name='warm')\ndef warm(p, ctx):\n    return 1\n")
	path := writeTool(t, "slowimport.py", "import time\ntime.sleep(30)\nfrom aios_sdk import tool\n@tool(name='x')\ndef x(p, ctx):\n    return 1\n")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	p, err := h.LoadFile(ctx, path, host.ProviderMeta{Source: "x", Trust: abi.System})
	if err == nil {
		_ = p.Close()
		t.Fatal("the load succeeded")
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("the cancelled load returned after %v: %v", took, err)
	}
	t.Log(err)
}
