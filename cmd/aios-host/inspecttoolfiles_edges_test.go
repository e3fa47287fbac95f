package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectSeveralToolFilesNamed: inspect of a provider folder of
// tool.ts and the tool.js tsc writes beside it, which discovery refuses
// as several artifacts (TestSeveralToolFilesNamed there), said "several
// plugin files (tool.js, tool.ts) and no tool.<ext>", though there were
// two. It says there is more than one tool.<ext>.
func TestInspectSeveralToolFilesNamed(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "pkg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"tool.js", "tool.ts"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("aios.registerTool({ name: 'x', description: 'x' }, async () => 1);\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errs := e.run("", "inspect", dir)
	if code == exitOK || !strings.Contains(errs, "tool.js, tool.ts") || strings.Contains(errs, "and no tool.<ext>") || !strings.Contains(errs, "more than one tool.<ext>") {
		t.Fatalf("inspect of a folder of tool.js and tool.ts: exit %d, stderr %q", code, errs)
	}
}
