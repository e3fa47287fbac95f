package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestInspectComponentUsesConfig: inspect of a component used the
// built-in limits whatever --config said (left over from p126, which
// fixed core modules): a component refused by run for
// runtimes.wasm.memory_limit_pages was described by inspect, and one a
// raised limit admits could not be. The config's runtimes.wasm applies as
// for run.
func TestInspectComponentUsesConfig(t *testing.T) {
	bin, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "build", "components", "echo.component.wasm"))
	if err != nil {
		t.Skipf("echo.component.wasm is missing (make samples): %v", err)
	}
	e := newEnv(t)
	dir := t.TempDir()
	comp := filepath.Join(dir, "echo.component.wasm")
	if err := os.WriteFile(comp, bin, 0o644); err != nil {
		t.Fatal(err)
	}
	low := filepath.Join(dir, "low.yaml")
	if err := os.WriteFile(low, []byte("runtimes:\n  wasm:\n    memory_limit_pages: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "inspect", "--config", low, comp)
	if code == exitOK || !strings.Contains(errs, "memory_limit_pages") {
		t.Fatalf("inspect under memory_limit_pages 1: exit %d, stdout %.200q, stderr %q; want the limit's refusal", code, out, errs)
	}
	if code, out, errs := e.run("", "inspect", comp); code != exitOK || !strings.Contains(out, "tool ") {
		t.Fatalf("inspect with the default limits: exit %d, stdout %.200q, stderr %q", code, out, errs)
	}
}
