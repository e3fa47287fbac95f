package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
)

// TestAuditShow: `audit show` prints the verified records its filters
// select (a table, or the log's lines with --json), the last --limit of
// them, escapes what a client chose, and stops at a line that fails
// verification with exit 1.
func TestAuditShow(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	w, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	entries := []audit.Entry{
		{Time: t0, CallID: "c1", Caller: "cli", Tool: "echo", Version: "1.0.0", Provider: "p", Runtime: "native", Result: "x"},
		{Time: t0.Add(time.Minute), CallID: "c3", ParentID: "c2", Caller: "org.p", Tool: "image-resize", Version: "2.0.0", Principal: "oauth:alice", Session: "S1", Remote: "10.0.0.5:4000", Result: 1},
		{Time: t0.Add(time.Minute), CallID: "c2", Caller: "peer", Tool: "relay", Version: "1.0.0", Principal: "oauth:alice", Session: "S1", Remote: "10.0.0.5:4000", Result: 1},
		{Time: t0.Add(2 * time.Minute), CallID: "c4", Caller: "peer", Tool: "nope\x1b[2J", Outcome: "NotFound", Error: "not found", Principal: "token:laptop", Remote: "[::1]:5000"},
		{Time: t0.Add(3 * time.Minute), CallID: "c5", Caller: "cli", Tool: "echo", Version: "1.0.0", Outcome: "Timeout", Error: "late"},
		{Time: t0.Add(4 * time.Minute), CallID: "c8", ParentID: "c7", Caller: "org.q", Tool: "leaf"},
		{Time: t0.Add(4 * time.Minute), CallID: "c7", ParentID: "c6", Caller: "org.p", Tool: "middle"},
		{Time: t0.Add(4 * time.Minute), CallID: "c9", ParentID: "c6", Caller: "org.p", Tool: "side"},
		{Time: t0.Add(4 * time.Minute), CallID: "c6", Caller: "peer", Tool: "root"},
	}
	for _, en := range entries {
		w.Log(en)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	calls := func(args ...string) []string {
		t.Helper()
		code, out, errs := e.run("", append([]string{"audit", "show"}, args...)...)
		if code != 0 {
			t.Fatalf("audit show %v: %d %q %q", args, code, out, errs)
		}
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			ids = append(ids, strings.Fields(l)[7])
		}
		return ids
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "c1 c3 c2 c4 c5 c8 c7 c9 c6"},
		{[]string{"--tool", "ech?"}, "c1 c5"},
		{[]string{"--principal", "oauth:alice"}, "c3 c2"},
		{[]string{"--session", "S1", "--caller", "peer"}, "c2"},
		{[]string{"--outcome", "error"}, "c4 c5"},
		{[]string{"--remote", "10.0.0.5"}, "c3 c2"},
		{[]string{"--remote", "::1"}, "c4"},
		{[]string{"--remote", "[::1]:5000"}, "c4"},
		{[]string{"--remote", "10.0.0.6"}, ""},
		{[]string{"--outcome", "Timeout"}, "c5"},
		{[]string{"--call", "c2"}, "c3 c2"},
		{[]string{"--call", "c6"}, "c8 c7 c9 c6"},
		{[]string{"--call", "c7"}, "c8 c7"},
		{[]string{"--call", "c6", "--caller", "org.p"}, "c7 c9"},
		{[]string{"--since", "2026-12-01T10:01:00Z", "--until", "2026-12-01T10:03:00Z"}, "c3 c2 c4"},
		{[]string{"--since", "2026-12-01T10:04:00Z"}, "c8 c7 c9 c6"},
		{[]string{"--limit", "2"}, "c9 c6"},
		{[]string{"--limit", "1", "--caller", "peer"}, "c6"},
	} {
		if got := strings.Join(calls(tc.args...), " "); got != tc.want {
			t.Errorf("audit show %v: calls %q, want %q", tc.args, got, tc.want)
		}
	}
	code, out, _ := e.run("", "audit", "show", "--outcome", "NotFound")
	if code != 0 || strings.Contains(out, "\x1b") || !strings.Contains(out, `nope\x1b[2J`) {
		t.Fatalf("a client's tool name with an escape sequence: %d %q", code, out)
	}
	code, out, _ = e.run("", "audit", "show", "--json", "--principal", "token:laptop")
	var rec map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil || rec["call_id"] != "c4" || rec["principal"] != "token:laptop" {
		t.Fatalf("--json: %d %q", code, out)
	}
	code, out, _ = e.run("", "audit", "show", "--since", "1h")
	if code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("--since 1h (all records are older): %d %q", code, out)
	}
	for _, bad := range [][]string{{"--since", "yesterday"}, {"--limit", "-1"}, {"--tool", "["}, {"--key", "k.pem"}} {
		if code, _, errs := e.run("", append([]string{"audit", "show"}, bad...)...); code == 0 || errs == "" {
			t.Errorf("audit show %v: %d, want a refusal", bad, code)
		}
	}
	if code, _, errs := e.run("", "audit", "verify", "--caller", "cli"); code != exitUsage || !strings.Contains(errs, "only audit show takes --caller") {
		t.Errorf("audit verify --caller: %d %q", code, errs)
	}

	// An edited record: the ones before it are shown, then the failure.
	data, _ := os.ReadFile(path)
	edited := strings.Replace(string(data), `"caller":"peer","error":"not found"`, `"caller":"cli","error":"not found"`, 1)
	if edited == string(data) {
		t.Fatal("the test's edit did not apply")
	}
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "audit", "show")
	if code != exitFail || !strings.Contains(out, "c2") || strings.Contains(out, "c4") || strings.Contains(out, "c5") ||
		!strings.Contains(errs, "line 4") || !strings.Contains(errs, "not shown") {
		t.Fatalf("show of an edited log: %d %q %q", code, out, errs)
	}
}

// TestAuditShowRefused: `audit show --refused` selects the calls a host
// service refused for want of a capability: those that failed with
// CapabilityDenied and those that caught the refusal and answered (outcome
// ok or another code, the refusal noted at the head of the error), which
// `--outcome CapabilityDenied` alone misses.
func TestAuditShowRefused(t *testing.T) {
	e := newEnv(t)
	w, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, en := range []audit.Entry{
		{Time: t0, CallID: "c1", Caller: "cli", Tool: "echo"},
		{Time: t0, CallID: "c2", Caller: "cli", Tool: "peek", Outcome: "CapabilityDenied", Error: `caller "cli" lacks ReadSpace(secret)`},
		{Time: t0, CallID: "c3", Caller: "cli", Tool: "sly", Error: audit.RefusalNote + `caller "cli" lacks ReadSpace(secret)`},
		{Time: t0, CallID: "c4", Caller: "cli", Tool: "sly", Outcome: "Internal", Error: audit.RefusalNote + `caller "cli" lacks Net(x) (2 refused in all); boom`},
		{Time: t0, CallID: "c5", Caller: "cli", Tool: "echo", Outcome: "Internal", Error: "a message quoting host service refused during the call: CapabilityDenied: "},
	} {
		w.Log(en)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--refused"}, "c2 c3 c4"},
		{[]string{"--refused", "--outcome", "ok"}, "c3"},
		{[]string{"--refused", "--outcome", "error"}, "c2 c4"},
		{[]string{"--outcome", "CapabilityDenied"}, "c2"},
	} {
		code, out, errs := e.run("", append([]string{"audit", "show"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("audit show %v: %d %q %q", tc.args, code, out, errs)
		}
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			ids = append(ids, strings.Fields(l)[7])
		}
		if got := strings.Join(ids, " "); got != tc.want {
			t.Errorf("audit show %v: calls %q, want %q", tc.args, got, tc.want)
		}
	}
	if code, _, errs := e.run("", "audit", "verify", "--refused"); code != exitUsage || !strings.Contains(errs, "--refused") {
		t.Errorf("audit verify --refused: %d %q, want a usage error naming --refused", code, errs)
	}
}
