package audit

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrincipalAndSession: a record of a call with a principal or a session
// carries them under their keys in canonical order (principal between prev
// and provider, session between seq and time) and verifies; a record
// without them has neither key, as the logs written before they existed;
// an empty one written out is not canonical (an edit).
func TestPrincipalAndSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(Entry{CallID: "c1", Caller: "peer", Tool: "echo", Principal: "oauth:alice", Session: "SESS1"})
	w.Log(Entry{CallID: "c2", Caller: "cli", Tool: "echo"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	if n, err := Verify(bytes.NewReader(join(lines))); err != nil || n != 2 {
		t.Fatalf("Verify = %d, %v", n, err)
	}
	l1, l2 := string(lines[0]), string(lines[1])
	for _, want := range []string{`,"prev":"","principal":"oauth:alice","provider":`, `,"seq":1,"session":"SESS1","time":`} {
		if !strings.Contains(l1, want) {
			t.Errorf("record 1 %s lacks %s", l1, want)
		}
	}
	if strings.Contains(l2, "principal") || strings.Contains(l2, "session") {
		t.Errorf("record 2 without origin has its keys: %s", l2)
	}
	rec, reason := checkLine(bytes.TrimSuffix(lines[0], []byte("\n")))
	if reason != "" || rec.Principal != "oauth:alice" || rec.Session != "SESS1" {
		t.Fatalf("record 1 decoded %+v (%s)", rec, reason)
	}
	// A principal removed from a record breaks its hash; an empty one added
	// is not the canonical form.
	cut := strings.Replace(l1, `"principal":"oauth:alice",`, "", 1)
	if _, reason := checkLine([]byte(strings.TrimSuffix(cut, "\n"))); !strings.Contains(reason, "hash mismatch") {
		t.Errorf("record with its principal removed: %q, want a hash mismatch", reason)
	}
	r2, _ := checkLine(bytes.TrimSuffix(lines[1], []byte("\n")))
	empty := strings.Replace(l2, `,"provider":`, `,"principal":"","provider":`, 1)
	if _, reason := checkLine([]byte(strings.TrimSuffix(empty, "\n"))); !strings.Contains(reason, "canonical") {
		t.Errorf("record with an empty principal key: %q, want not canonical (record %+v)", reason, r2)
	}
}
