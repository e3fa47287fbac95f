package audit

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A record logged after Close (a call that ended after the host closed
// its log) was dropped without a word: only a counter nobody reads
// (Dropped) knew. The first such drop is logged, naming the call.
func TestDropAfterCloseIsLogged(t *testing.T) {
	var buf bytes.Buffer
	w, err := Open(filepath.Join(t.TempDir(), "a.jsonl"), Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Log(Entry{Time: time.Now(), CallID: "late-1", Tool: "t", Outcome: "ok"})
	w.Log(Entry{Time: time.Now(), CallID: "late-2", Tool: "t", Outcome: "ok"})
	if w.Dropped() != 2 {
		t.Fatalf("dropped %d", w.Dropped())
	}
	out := buf.String()
	if !strings.Contains(out, "late-1") || strings.Count(out, "level=") != 1 {
		t.Fatalf("want one log line naming late-1, got %q", out)
	}
}
