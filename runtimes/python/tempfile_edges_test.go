package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A tool that makes a temporary file (tempfile.TemporaryFile(),
// NamedTemporaryFile, mkdtemp: common in libraries) failed
// "FileNotFoundError: [Errno 2] No usable temporary directory found in
// ['/tmp', '/var/tmp', '/usr/tmp', …]", which reads as a machine without
// /tmp, where the sandbox lets a tool write no file; it got none of the
// sandbox note a PermissionError on a file gets
// (TestFilePermissionErrorSaysSandbox). Now it does.
func TestTempfileErrorSaysSandbox(t *testing.T) {
	rt := newRuntime(t, nil)
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := rt.Layers(); l.Landlock == 0 {
		t.Skipf("no Landlock on this machine: %q", l.Degraded())
	}
	h := newHost(t, rt)
	loadTool(t, h, "temps.py", `import tempfile
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def scratch(params):
    with tempfile.TemporaryFile() as f:
        f.write(b"x")
    return "written"
`)
	_, err := call(h, "scratch", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "No usable temporary directory found", "(at temps.py:10); the sandbox lets a tool read (and run) only files of its own folder", "write no file")
	stillServes(t, h, "a tempfile refused")
}
