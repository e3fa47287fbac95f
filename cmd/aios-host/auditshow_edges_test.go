package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/audit"
)

// rotatingLog writes a log of 9 records whose records 1-3 are rotated
// and 4-6 current, and makes the listing of `audit` rotate it once more
// (4-6 get their name, 7-9 become current) right after it listed the files,
// as a running host does every audit.max_bytes.
func rotatingLog(t *testing.T, e *env) {
	t.Helper()
	path := filepath.Join(e.data, "audit.jsonl")
	w, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 9; i++ {
		parent := ""
		if i == 8 {
			parent = "c2" // a call nested in c2, in a file the listing lacked
		}
		w.Log(audit.Entry{Time: time.Unix(int64(i), 0), CallID: fmt.Sprint("c", i), ParentID: parent, Caller: "cli", Tool: "echo", Version: "1.0.0",
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
	if err := os.WriteFile(audit.RotatedName(path, 1, 3), seg(1, 3), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, seg(4, 6), 0o600); err != nil {
		t.Fatal(err)
	}
	auditListed = func() {
		auditListed = nil // the host rotates once
		if err := os.Rename(path, audit.RotatedName(path, 4, 6)); err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(path, seg(7, 9), 0o600); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { auditListed = nil })
}

// `audit show` without FILE listed the rotated files, then read them and
// the current file. A host that rotated in between left at the path a file
// that follows one the listing lacked, and show said the log fails
// verification (exit 1, records from there on not shown) about a whole log,
// where `audit verify` lists the files again (TestVerifyRacingRotation).
func TestAuditShowRacingRotation(t *testing.T) {
	for _, args := range [][]string{nil, {"--limit", "4"}, {"--json"}, {"--call", "c2"}} {
		e := newEnv(t)
		rotatingLog(t, e)
		code, out, errs := e.run("", append([]string{"audit", "show"}, args...)...)
		want := []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"}
		switch {
		case len(args) == 0:
		case args[0] == "--limit":
			want = want[5:]
		case args[0] == "--call":
			want = []string{"c2", "c8"} // c8, nested in c2, is in the file the listing lacked
		}
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(l); len(args) > 0 && args[0] == "--json" {
				var r struct {
					CallID string `json:"call_id"`
				}
				_ = json.Unmarshal([]byte(l), &r)
				ids = append(ids, r.CallID)
			} else if len(f) > 7 && f[0] != "SEQ" {
				ids = append(ids, f[7])
			}
		}
		got := strings.Join(ids, " ")
		if code != 0 || errs != "" || got != strings.Join(want, " ") {
			t.Errorf("audit show %v while the log rotates: %d %q\n%s%s", args, code, got, out, errs)
		}
	}
}

// `audit show --outcome timeout` (or OK, error codes being case-sensitive)
// said "no record matches" of a log full of Timeout records: a user took it
// for "no call timed out". A value that differs from ok, error or a known
// code only in case is refused, naming the spelling.
func TestAuditShowOutcomeCase(t *testing.T) {
	e := newEnv(t)
	w, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(audit.Entry{CallID: "c1", Caller: "cli", Tool: "echo", Outcome: "Timeout", Error: "late"})
	w.Log(audit.Entry{CallID: "c2", Caller: "cli", Tool: "echo", Result: 1})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for bad, want := range map[string]string{"timeout": "Timeout", "OK": "ok", "Error": "error", "capabilitydenied": "CapabilityDenied"} {
		code, out, errs := e.run("", "audit", "show", "--outcome", bad)
		if code == 0 || !strings.Contains(errs, want) {
			t.Errorf("audit show --outcome %s: %d %q %q, want a refusal naming %s", bad, code, out, errs, want)
		}
	}
	for _, good := range []string{"Timeout", "ok", "error", "SomeOldCode"} {
		if code, out, errs := e.run("", "audit", "show", "--outcome", good); code != 0 {
			t.Errorf("audit show --outcome %s: %d %q %q", good, code, out, errs)
		}
	}
}

// `audit show --tool '*read*'` (or '*') left out the records of Space
// reads, tool aios/space.read: the glob was path.Match's, whose * stops at
// a '/'. Tool names have no '/', the host's record of a Space read has one.
func TestAuditShowToolGlobSpansSlash(t *testing.T) {
	e := newEnv(t)
	w, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(audit.Entry{CallID: "c1", Caller: "cli", Tool: "echo", Result: 1})
	w.Log(audit.Entry{CallID: "c2", Caller: "cli", Tool: "aios/space.read", Provider: "host", Runtime: "host", Result: 1})
	w.Log(audit.Entry{CallID: "c3", Caller: "cli", Tool: "mcp-fs-read-x", Result: 1})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for glob, want := range map[string]string{"*": "c1 c2 c3", "*read*": "c2 c3", "aios/*": "c2", "*/space.read": "c2", "ech?": "c1", "aios?space.read": "c2"} {
		code, out, errs := e.run("", "audit", "show", "--tool", glob)
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			ids = append(ids, strings.Fields(l)[7])
		}
		if got := strings.Join(ids, " "); code != 0 || got != want {
			t.Errorf("audit show --tool %q: %d %q %q, want %s", glob, code, got, errs, want)
		}
	}
}

// `audit show --json` printed a client's tool name holding C1 controls
// (U+009B is CSI to terminals that run C1) and a bidi override raw: the
// log escapes only what JSON requires. They are \u escapes now, the same
// JSON value; a line without them is printed as the log holds it.
func TestAuditShowJSONTerminalSafe(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	w, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hostile := "nope\u009b2J\u202eevil\U000e0041\u00e9\u4e2d\U0001f600"
	w.Log(audit.Entry{CallID: "c1", Caller: "peer", Tool: hostile, Outcome: "NotFound", Error: "not found"})
	w.Log(audit.Entry{CallID: "c2", Caller: "cli", Tool: "caf\u00e9", Result: 1})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "audit", "show", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("audit show --json: %d %q %q", code, out, errs)
	}
	for _, bad := range []string{"\u009b", "\u202e", "\U000e0041"} {
		if strings.Contains(lines[0], bad) {
			t.Errorf("--json printed %q raw: %q", bad, lines[0])
		}
	}
	if !strings.Contains(lines[0], `\u009b`) || !strings.Contains(lines[0], `\u202e`) || !strings.Contains(lines[0], `\udb40\udc41`) || !strings.Contains(lines[0], "\u00e9\u4e2d\U0001f600") {
		t.Errorf("--json line: %q", lines[0])
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec["tool"] != hostile {
		t.Errorf("--json line reads as %v (%v), want tool %q", rec["tool"], err, hostile)
	}
	logged, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Split(strings.TrimSpace(string(logged)), "\n")[1]; lines[1] != want {
		t.Errorf("a printable line changed: %q, log has %q", lines[1], want)
	}
}

func FuzzTermSafeJSON(f *testing.F) {
	f.Add([]byte(`{"tool":"a\u009bb"}`))
	f.Add([]byte("{\"tool\":\"\u202e\U000e0041\xff\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		out := termSafeJSON(b)
		for i := 0; i < len(out); {
			r, size := utf8.DecodeRune(out[i:])
			if r >= utf8.RuneSelf && !(r == utf8.RuneError && size == 1) && !strconv.IsPrint(r) {
				t.Fatalf("%q left %U raw: %q", b, r, out)
			}
			i += size
		}
		var v1, v2 any
		if json.Unmarshal(b, &v1) == nil {
			if err := json.Unmarshal(out, &v2); err != nil || fmt.Sprint(v1) != fmt.Sprint(v2) {
				t.Fatalf("%q → %q: %v, value %v → %v", b, out, err, v1, v2)
			}
		}
	})
}
