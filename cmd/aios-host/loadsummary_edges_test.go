package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSummaryNamesFailedFileOnce: run's summary of a JS file with a
// syntax error read "not loaded: X: load X (js runtime): load X: X:1:45:
// Expected …", the file four times over. It names it once, and again in
// the position of the error.
func TestRunSummaryNamesFailedFileOnce(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.js")
	if err := os.WriteFile(bad, []byte("aios.registerTool({ name: 'x' }, (p) => ({}); syntax(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.startRun("JSON-RPC on", "--plugins", dir, "--socket", filepath.Join(e.data, "s.sock"))
	log := r.stderr.String()
	r.stop()
	var line string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "not loaded: ") {
			line = l
		}
	}
	if want := "not loaded: " + bad + " (js runtime): " + bad + ":1:"; !strings.Contains(line, want) || strings.Count(line, bad) != 2 {
		t.Errorf("run's summary line %q; want %q, the file named twice", line, want)
	}
}
