package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
)

// `audit verify` without FILE listed the rotated files, then read them and
// the current file. A running host that rotated in between (every
// audit.max_bytes; a verify of a large log takes seconds) left at the path
// a file that follows one the listing lacked, and verify said FAIL ("the
// files do not join") about a whole log.
func TestVerifyRacingRotation(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	w, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 9; i++ {
		w.Log(audit.Entry{Time: time.Unix(int64(i), 0), CallID: fmt.Sprint("c", i), Caller: "cli", Tool: "echo", Version: "1.0.0",
			Runtime: "native", Provider: "org.test", Params: map[string]any{"i": int64(i)}, Result: "ok"})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	seg := func(a, b int) []byte { return bytes.Join(lines[a-1:b], nil) }
	// Records 1-3 rotated already, 4-6 current when verify lists them.
	if err := os.WriteFile(audit.RotatedName(path, 1, 3), seg(1, 3), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, seg(4, 6), 0o600); err != nil {
		t.Fatal(err)
	}
	auditListed = func() { // the host rotates: 4-6 gets its name, 7-9 is current
		if err := os.Rename(path, audit.RotatedName(path, 4, 6)); err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(path, seg(7, 9), 0o600); err != nil {
			t.Error(err)
		}
	}
	defer func() { auditListed = nil }()
	code, out, errs := e.run("", "audit", "verify")
	if code != 0 || !strings.Contains(out, " 9 records, anchor 9:") {
		t.Fatalf("verify while the log rotates: %d %q %s", code, out, errs)
	}
}
