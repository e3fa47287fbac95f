package audit

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// panickyValue is an embedder's Go value whose MarshalJSON panics (a nil
// field it reads).
type panickyValue struct{}

func (panickyValue) MarshalJSON() ([]byte, error) { panic("nil field") }

// TestValueWhoseMarshalerPanicsIsUnhashable: the host hands the log the
// params of a call refused before they are checked (an unknown tool, a
// capability denied) as its caller gave them, any Go value. One whose
// MarshalJSON panicked took the writer's goroutine down with it, and the
// whole process with the records in hand. It is a value that cannot be
// encoded, as one json.Marshal refuses: no hash ("") and a warning, and
// the log goes on.
func TestValueWhoseMarshalerPanicsIsUnhashable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var logged bytes.Buffer
	w, err := Open(path, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(Entry{CallID: "c1", Tool: "nosuch", Params: map[string]any{"x": panickyValue{}}, Outcome: "NotFound", Error: "no tool nosuch"})
	w.Log(Entry{CallID: "c2", Tool: "t", Params: map[string]any{}, Result: panickyValue{}})
	w.Log(Entry{CallID: "c3", Tool: "t", Params: map[string]any{"a": int64(1)}, Result: "ok"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := CanonicalJSON(panickyValue{}); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("CanonicalJSON of a panicking marshaler: %v, want an error saying it panicked", err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []Record
	n, _, err := VerifyWith(f, VerifyOptions{Each: func(r *Record, _ []byte) error { recs = append(recs, *r); return nil }})
	if err != nil || n != 3 {
		t.Fatalf("verify: %d records, %v; want 3", n, err)
	}
	if recs[0].ParamsHash != "" || recs[1].ResultHash != "" || recs[1].ParamsHash == "" || recs[2].ParamsHash == "" || recs[2].ResultHash == "" {
		t.Errorf("hashes: %+v", recs)
	}
	if !strings.Contains(logged.String(), "value not hashable") || !strings.Contains(logged.String(), "panicked") {
		t.Errorf("no warning naming the panic: %s", logged.String())
	}
}
