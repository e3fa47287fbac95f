package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestInspectModuleUsesConfig: inspect loaded a core module with the
// built-in runtimes.wasm settings whatever --config said, while it loads
// .js, .ts and .py files with the config's runtimes. A module whose memory
// starts above the default limit was refused with the advice to raise
// runtimes.wasm.memory_limit_pages, and raising it in the file given with
// --config changed nothing; a module the host refuses under the config's
// lower limit was shown as fine. The config's runtimes.wasm section
// (memory_limit_pages, providers, load_timeout, …) applies to inspect as it
// does to run.
func TestInspectModuleUsesConfig(t *testing.T) {
	bin, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "build", "wasm", "c-echo.wasm"))
	if err != nil {
		t.Skipf("c-echo.wasm is missing (make samples): %v", err)
	}
	e := newEnv(t)
	dir := t.TempDir()
	mod := filepath.Join(dir, "c-echo.wasm")
	if err := os.WriteFile(mod, bin, 0o644); err != nil {
		t.Fatal(err)
	}
	// c-echo's memory starts at 2 pages: under a limit of 1 the host
	// refuses it, and inspect says so, naming the key.
	low := filepath.Join(dir, "low.yaml")
	if err := os.WriteFile(low, []byte("runtimes:\n  wasm:\n    memory_limit_pages: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "inspect", "--config", low, mod)
	if code == exitOK || !strings.Contains(errs, "runtimes.wasm.memory_limit_pages") {
		t.Fatalf("inspect under memory_limit_pages 1: exit %d, stdout %q, stderr %q; want the limit's refusal", code, out, errs)
	}
	// Its own entry raises it again, as for run.
	own := filepath.Join(dir, "own.yaml")
	if err := os.WriteFile(own, []byte("runtimes:\n  wasm:\n    memory_limit_pages: 1\n    providers:\n      c-echo: {memory_limit_pages: 4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.run("", "inspect", "--config", own, mod); code != exitOK || !strings.Contains(out, "tool c-echo") {
		t.Fatalf("inspect with providers.c-echo.memory_limit_pages 4: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
