package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
)

// TestConfigCheckAuditPathNotALog: a running host's config edited so that
// audit.path names a regular file that is no audit log (a slip naming
// the config itself, a text file) was logged as a change a restart
// applies, and the restart failed: "refusing to append to …: its last
// record is damaged". The check says so at once, with the file, line and
// key, as run would; an audit log, a crash's tail (repaired at start), an
// empty file or one not there yet still pass, and none is changed.
func TestConfigCheckAuditPathNotALog(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("hello world\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "audit:\n  max_files: 0\n  path: "+text+"\n")
	err := checkConfigFile(cfg)
	if err == nil || !strings.HasPrefix(err.Error(), cfg+":3: audit.path: ") || !strings.Contains(err.Error(), "refusing to append to "+text) {
		t.Fatalf("audit.path naming a text file: got %v, want it named at %s:3 with why run refuses it", err, cfg)
	}
	if b, _ := os.ReadFile(text); string(b) != "hello world\n" {
		t.Fatalf("the check changed the file: %q", b)
	}

	log := filepath.Join(dir, "audit.jsonl")
	w, err := audit.Open(log, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(audit.Entry{Time: time.Unix(1, 0), CallID: "c1", Caller: "cli", Tool: "echo", Version: "1.0.0", Runtime: "native", Provider: "p"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	crashed := filepath.Join(dir, "crashed.jsonl")
	b, _ := os.ReadFile(log)
	if err := os.WriteFile(crashed, append(b, `{"call_id":"c2","cal`...), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A crash's tail is also what the check sees of a write in progress
	// in the log of the host running now: it passes.
	for _, p := range []string{log, crashed, empty, filepath.Join(dir, "new.jsonl")} {
		if err := checkConfigFile(writeConfig(t, "audit:\n  path: "+p+"\n")); err != nil {
			t.Errorf("audit.path %s: %v", p, err)
		}
	}
	if b2, _ := os.ReadFile(crashed); len(b2) != len(b)+len(`{"call_id":"c2","cal`) {
		t.Errorf("the check changed the crashed log")
	}
}
