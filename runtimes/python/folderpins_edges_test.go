package python_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestLaterWorkerImportsLoadedHelpers: a worker started after the load (a
// pool growing under concurrent calls, a replacement after a crash) ran the
// tool file as loaded but imported the folder's other modules from disk, so
// a helpers.py being saved (half-written, broken) made those calls fail
// "starting a python worker: helpers.py:1:9: SyntaxError" while hot reload
// kept the old version serving, and an edited one ran new helper code under
// the old tool file. The folder's modules are shipped to the workers as they
// were at the load, as the tool file is.
func TestLaterWorkerImportsLoadedHelpers(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1 }))
	p := writeTool(t, "tool.py", "import os\nfrom aios_sdk import tool\nimport helpers\n\n"+
		"@tool(name='get')\ndef get(params):\n    return {'v': helpers.VALUE}\n\n"+
		"@tool(name='crash')\ndef crash(params):\n    os._exit(1)\n")
	hp := filepath.Join(filepath.Dir(p), "helpers.py")
	if err := os.WriteFile(hp, []byte("VALUE = 'old'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.LoadFile(context.Background(), p, host.ProviderMeta{Trust: abi.System, Unit: filepath.Dir(p)}); err != nil {
		t.Fatal(err)
	}
	check := func() {
		t.Helper()
		r, err := call(h, "get", map[string]any{}, 30*time.Second)
		if err != nil {
			t.Fatalf("get: %v", err)
		}
		if m, _ := r.(map[string]any); m["v"] != "old" {
			t.Fatalf("get = %v, want the helpers.py loaded ('old')", r)
		}
	}
	check()
	// A save in progress: the file is half-written.
	if err := os.WriteFile(hp, []byte("VALUE = 'new-ha"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := call(h, "crash", map[string]any{}, 30*time.Second); err == nil {
		t.Fatal("crash returned no error")
	}
	check()
	// A complete edit: still not run until the provider is loaded again.
	if err := os.WriteFile(hp, []byte("VALUE = 'new'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := call(h, "crash", map[string]any{}, 30*time.Second); err == nil {
		t.Fatal("crash returned no error")
	}
	check()
}
