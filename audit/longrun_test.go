package audit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestRotatedCrashRestarts: a host that runs for weeks rotates its
// log many times and is killed now and then, once in the middle of the
// first record of a fresh file (the file holds only that record's
// beginning). Each restart continues the chain (from the newest rotated
// file when the current one has no whole record) and the whole set of
// rotated files and the current one verifies as one chain.
func TestRotatedCrashRestarts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	total := 0
	for run := 0; run < 6; run++ {
		w, err := Open(path, Options{MaxBytes: 3000, RepairTail: true})
		if err != nil {
			t.Fatalf("restart %d: %v", run, err)
		}
		for i := 0; i < 25; i++ {
			w.Log(Entry{CallID: fmt.Sprintf("c%d-%d", run, i), Tool: "t", Params: map[string]any{"i": i}})
			total++
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		// The crash: what a killed write leaves at the end of the file.
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		partial := []byte(`{"call_id":"lost-` + fmt.Sprint(run))
		if run%2 == 0 && bytes.Count(b, []byte("\n")) > 0 {
			// Killed right after a rotation, in the first write of the
			// fresh file: rotate the current file as the writer does.
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			first := firstSeq(f)
			f.Close()
			last, err := lastRecord(path)
			if err != nil || first == 0 {
				t.Fatal(first, err)
			}
			if err := os.Rename(path, RotatedName(path, first, last.Seq)); err != nil {
				t.Fatal(err)
			}
			b = nil
		}
		if err := os.WriteFile(path, append(b, partial...), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Open(path, Options{MaxBytes: 3000, RepairTail: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(Entry{CallID: "last", Tool: "t"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rot, err := RotatedFiles(path)
	if err != nil || len(rot) < 3 {
		t.Fatalf("rotated files %v, %v: want several", rot, err)
	}
	var files []string
	for _, r := range rot {
		files = append(files, r.Path)
	}
	files = append(files, path)
	n, _, failed, err := VerifyFiles(files, VerifyOptions{})
	if err != nil {
		t.Fatalf("the rotated set does not verify as one chain: %s: %v", failed, err)
	}
	if n != total+1 {
		t.Fatalf("verified %d records of the %d logged", n, total+1)
	}
}
