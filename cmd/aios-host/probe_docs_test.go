package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestProbeCallAsWhileHostRuns: the README says that `call --as AGENT`
// loads the tools in the command's own process when a host runs on the
// data directory (and the command's own notice suggests it). The running
// host holds the audit log, so such a call used to fail with "audit log is
// in use by another process". It now writes a hash-chained log of its own
// under <data>/audit-sessions/, as `aios-host mcp` does, and names it.
func TestProbeCallAsWhileHostRuns(t *testing.T) {
	e := newEnv(t)
	id := e.putSource()
	held, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, out, errs := e.run("", "call", "analyze-complexity", `{"object_id": "`+id+`", "language": "go"}`, "--as", "cli")
	if code != 0 || !strings.Contains(out, `"complexity"`) {
		t.Fatalf("call --as with the audit log held: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	logs, _ := filepath.Glob(filepath.Join(e.data, "audit-sessions", "call-*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("want one session log under audit-sessions, got %v (stderr %q)", logs, errs)
	}
	if !strings.Contains(errs, logs[0]) {
		t.Errorf("stderr does not name the session log %s: %q", logs[0], errs)
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 1 {
		t.Errorf("session log has %d records, want 1", n)
	}
	if code, _, errs := e.run("", "audit", "verify", logs[0]); code != 0 {
		t.Errorf("audit verify of the session log: %d %s", code, errs)
	}
}
