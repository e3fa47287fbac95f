package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
)

// TestAuditVerifyRotated: `audit verify` without FILE checks the configured
// log and the files rotation split off it as one chain; with the oldest
// file removed it says so and points at --after, which then passes.
func TestAuditVerifyRotated(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	w, err := audit.Open(path, audit.Options{MaxBytes: 1500})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	for i := 1; i <= n; i++ {
		w.Log(audit.Entry{Time: time.Unix(int64(i), 0), CallID: fmt.Sprint("c", i), Caller: "cli", Tool: "echo", Version: "1.0.0",
			Runtime: "native", Provider: "org.test", Params: map[string]any{"i": int64(i)}, Result: "ok"})
		if i%2 == 0 {
			if err := w.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rotated, err := audit.RotatedFiles(path)
	if err != nil || len(rotated) < 2 {
		t.Fatalf("rotated files %v, %v", rotated, err)
	}

	code, out, errs := e.run("", "audit", "verify")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("%d files", len(rotated)+1)) || !strings.Contains(out, fmt.Sprintf(" %d records, anchor %d:sha256:", n, n)) {
		t.Fatalf("verify of the rotated log: %d %q %s", code, out, errs)
	}

	// The anchor of the oldest file's last record, as verify prints it.
	code, out, _ = e.run("", "audit", "verify", rotated[0].Path)
	i := strings.Index(out, "anchor ")
	if code != 0 || i < 0 {
		t.Fatalf("verify of %s: %d %q", rotated[0].Path, code, out)
	}
	after := strings.TrimSpace(out[i+len("anchor "):])
	if err := os.Remove(rotated[0].Path); err != nil {
		t.Fatal(err)
	}
	code, _, errs = e.run("", "audit", "verify")
	if code != exitFail || !strings.Contains(errs, "--after") {
		t.Fatalf("verify without the oldest file: %d %q", code, errs)
	}
	if code, out, errs := e.run("", "audit", "verify", "--after", after); code != 0 || !strings.Contains(out, fmt.Sprintf("anchor %d:", n)) {
		t.Fatalf("verify --after %s: %d %q %s", after, code, out, errs)
	}
	bad := strings.Replace(after, "sha256:", "sha256:0", 1)[:len(after)]
	if code, _, errs := e.run("", "audit", "verify", "--after", bad); code != exitFail || !strings.Contains(errs, "do not join") {
		t.Fatalf("verify --after with a wrong hash: %d %q", code, errs)
	}
}
