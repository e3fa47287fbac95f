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
	const n = 20
	writeRotated(t, path, n, 0)
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

// TestAuditSignedAnchor: audit anchor signs the last record's anchor with a
// keygen key; audit verify --signed-anchor checks it against the JWKS and
// then catches records cut from the end; a forged or foreign anchor fails.
func TestAuditSignedAnchor(t *testing.T) {
	e := newEnv(t)
	id := e.putSource()
	for range 3 {
		if code, _, errs := e.run("", "call", "analyze-complexity", `{"object_id":"`+id+`"}`); code != 0 {
			t.Fatal(errs)
		}
	}
	keys, other := t.TempDir(), t.TempDir()
	for _, dir := range []string{keys, other} {
		if code, _, errs := e.run("", "keygen", "--alg", "EdDSA", "--out", dir); code != 0 {
			t.Fatalf("keygen: %s", errs)
		}
	}
	signed := filepath.Join(t.TempDir(), "anchor.jws")
	code, out, errs := e.run("", "audit", "anchor", "--key", filepath.Join(keys, "private.pem"), "--out", signed)
	if code != 0 || !strings.Contains(out, "signed anchor 3:sha256:") {
		t.Fatalf("audit anchor: %d %q %s", code, out, errs)
	}
	log := filepath.Join(e.data, "audit.jsonl")
	intact, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// Records appended after the anchor are fine.
	if code, _, errs := e.run("", "call", "analyze-complexity", `{"object_id":"`+id+`"}`); code != 0 {
		t.Fatal(errs)
	}
	jwks := filepath.Join(keys, "jwks.json")
	if code, out, errs := e.run("", "audit", "verify", "--signed-anchor", signed, "--jwks", jwks); code != 0 {
		t.Fatalf("verify --signed-anchor: %d %q %s", code, out, errs)
	}
	// Cut back to two records: the anchor of record 3 catches it.
	lines := strings.SplitAfter(string(intact), "\n")
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(cut, []byte(strings.Join(lines[:2], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.run("", "audit", "verify", "--signed-anchor", signed, "--jwks", jwks, cut); code != exitFail || !strings.Contains(errs, "cut from the end") {
		t.Fatalf("verify --signed-anchor of a cut log: %d %q", code, errs)
	}
	// Another key's JWKS, or an edited token, is refused.
	if code, _, errs := e.run("", "audit", "verify", "--signed-anchor", signed, "--jwks", filepath.Join(other, "jwks.json")); code != exitFail || !strings.Contains(errs, "unknown signing key") {
		t.Fatalf("verify with a foreign JWKS: %d %q", code, errs)
	}
	tok, _ := os.ReadFile(signed)
	parts := strings.Split(strings.TrimSpace(string(tok)), ".")
	parts[1] = strings.Repeat("A", len(parts[1]))
	forged := filepath.Join(t.TempDir(), "forged.jws")
	if err := os.WriteFile(forged, []byte(strings.Join(parts, ".")), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.run("", "audit", "verify", "--signed-anchor", forged, "--jwks", jwks); code != exitFail || !strings.Contains(errs, "signed anchor") {
		t.Fatalf("verify with a forged anchor: %d %q", code, errs)
	}
	// Flags of one subcommand are refused on the other.
	if code, _, _ := e.run("", "audit", "verify", "--key", "x"); code != exitUsage {
		t.Fatalf("verify --key: exit %d, want usage", code)
	}
	if code, _, _ := e.run("", "audit", "anchor"); code != exitUsage {
		t.Fatalf("anchor without --key: exit %d, want usage", code)
	}
}

// writeRotated writes n records to the log at path, rotating at 1500
// bytes and keeping maxFiles rotated files (0: all).
func writeRotated(t *testing.T, path string, n, maxFiles int) {
	t.Helper()
	w, err := audit.Open(path, audit.Options{MaxBytes: 1500, MaxFiles: maxFiles})
	if err != nil {
		t.Fatal(err)
	}
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
}

// TestAuditVerifyPruned: after the host deleted old rotated files
// (audit.max_files), `audit verify` and `audit show` without FILE start
// from the anchor it kept, and say so; also when the host prunes between
// the listing and the reading; a damaged pruned file is an error naming it.
func TestAuditVerifyPruned(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	writeRotated(t, path, 30, 1)
	rotated, _ := audit.RotatedFiles(path)
	if len(rotated) != 1 || rotated[0].First <= 1 {
		t.Fatalf("rotated files after pruning: %v", rotated)
	}
	from := rotated[0].First
	code, out, errs := e.run("", "audit", "verify")
	if code != 0 || !strings.Contains(out, fmt.Sprintf(" %d records, anchor 30:", 30-from+1)) || !strings.Contains(errs, fmt.Sprintf("records 1 to %d were pruned (audit.max_files)", from-1)) {
		t.Fatalf("verify of a pruned log: %d %q %q", code, out, errs)
	}
	code, out, errs = e.run("", "audit", "show", "--json", "--limit", "0")
	if code != 0 || strings.Count(out, "\n") != int(30-from+1) || !strings.HasPrefix(out, `{"call_id":"c`+fmt.Sprint(from)+`"`) {
		t.Fatalf("show of a pruned log: %d %q %q", code, out, errs)
	}
	// Another file removed by hand: the kept anchor does not fit; verify
	// fails and points at --after.
	if err := os.Remove(rotated[0].Path); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.run("", "audit", "verify"); code != exitFail || !strings.Contains(errs, "--after") {
		t.Fatalf("verify with a file removed past the pruned ones: %d %q", code, errs)
	}
	if err := os.WriteFile(audit.PrunedName(path), []byte("{\"file\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.run("", "audit", "verify"); code != exitFail || !strings.Contains(errs, audit.PrunedName(path)+":1") {
		t.Fatalf("verify with a damaged pruned file: %d %q", code, errs)
	}

	// audit.max_files from the config: files a host rotated before are
	// pruned when the next command opens the log.
	e = newEnv(t)
	path = filepath.Join(e.data, "audit.jsonl")
	writeRotated(t, path, 30, 0)
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("audit:\n  max_files: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	id := e.putSource()
	if code, _, errs := e.run("", "call", "analyze-complexity", `{"object_id":"`+id+`"}`, "--config", cfg); code != 0 {
		t.Fatalf("call: %d %s", code, errs)
	}
	if rotated, _ := audit.RotatedFiles(path); len(rotated) != 2 {
		t.Fatalf("%d rotated files after a command with audit.max_files 2", len(rotated))
	}
	if code, out, errs := e.run("", "audit", "verify", "--config", cfg); code != 0 || !strings.Contains(out, "anchor 31:") {
		t.Fatalf("verify after pruning at start-up: %d %q %q", code, out, errs)
	}

	// The host prunes after verify listed the files.
	e = newEnv(t)
	path = filepath.Join(e.data, "audit.jsonl")
	writeRotated(t, path, 30, 0)
	auditListed = func() {
		auditListed = nil
		writeRotated(t, path, 0, 1) // a restart with max_files 1
	}
	t.Cleanup(func() { auditListed = nil })
	if code, out, errs := e.run("", "audit", "verify"); code != 0 || !strings.Contains(out, "anchor 30:") {
		t.Fatalf("verify while the host pruned: %d %q %q", code, out, errs)
	}
}
