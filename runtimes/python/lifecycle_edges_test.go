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
func TestLoadHonoursCancel(t *testing.T) {
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

// A call cancelled or timed out kills its worker, and a replacement starts
// in the background. Close waited for that replacement to finish starting:
// with a module that takes seconds to import, `aios-host run` took as long
// to stop after SIGTERM (6.6 s for a 6 s import), since shutdown cancels
// every call and so starts a replacement for each.
func TestCloseStopsReplacementStart(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := loadTool(t, h, "slowimp.py", "import time, asyncio\ntime.sleep(3)\nfrom aios_sdk import tool\n@tool(name='si')\nasync def si(p, ctx):\n    await asyncio.sleep(30)\n    return 1\n")
	if _, err := call(h, "si", map[string]any{}, 300*time.Millisecond); abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("want Timeout, got %v", err)
	}
	time.Sleep(200 * time.Millisecond) // the replacement is importing
	start := time.Now()
	_ = p.Close()
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Fatalf("Close took %v: it waited for a replacement worker to finish its import", took)
	}
}
