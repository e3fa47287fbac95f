package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestInspectWasmProviderFolder: `inspect plugins/NAME` of a WebAssembly
// provider folder (its .wasm beside a README, say) named the module and
// did not inspect it: "its plugin file is c-echo.wasm: inspect that file"
// (found by p185). The folder is inspected as the file the host loads of
// it, as a JS or Python provider folder is.
func TestInspectWasmProviderFolder(t *testing.T) {
	e := newEnv(t)
	guest, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "c-echo.wasm"))
	if err != nil {
		t.Skipf("the samples are not built: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "cecho")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"c-echo.wasm": guest, "README.txt": []byte("an echo")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := e.run("", "inspect", dir)
	if code != exitOK || !strings.Contains(out, "tool c-echo") || !strings.Contains(out, "tool c-add") {
		t.Fatalf("inspect %s: exit %d, stdout %q, stderr %q", dir, code, out, errs)
	}
	code, out, errs = e.run("", "inspect", "--json", dir)
	if code != exitOK || !strings.Contains(out, `"kind": "module"`) || !strings.Contains(out, `"c-add"`) {
		t.Fatalf("inspect --json %s: exit %d, stdout %q, stderr %q", dir, code, out, errs)
	}
}
