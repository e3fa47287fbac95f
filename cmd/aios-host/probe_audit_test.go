package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestProbeShowPrunedMidRead: when the host prunes files the reading has
// not reached yet while it reads an older one (audit show of a log whose
// host starts with a lower audit.max_files), the records of those files
// were never given to show, yet the retry from the pruned anchor passed:
// show printed the log with a silent gap. It fails now, naming the seqs.
func TestProbeShowPrunedMidRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeRotated(t, path, 40, 0)
	rot, err := audit.RotatedFiles(path)
	if err != nil || len(rot) < 3 {
		t.Fatalf("rotated files %v, %v", rot, err)
	}
	files, err := logFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	// What the pruner would do: append the anchors of rot[0] and rot[1],
	// then delete them.
	var prunedLines []byte
	for i := range 2 {
		paths := []string{}
		for _, r := range rot[:i+1] {
			paths = append(paths, r.Path)
		}
		_, last, _, err := audit.VerifyFiles(paths, audit.VerifyOptions{More: true})
		if err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(audit.Pruned{File: filepath.Base(rot[i].Path), First: rot[i].First, Last: rot[i].Last, Anchor: last.String()})
		prunedLines = append(append(prunedLines, line...), '\n')
	}
	var seqs []uint64
	pruned := false
	opts := audit.VerifyOptions{Each: func(r *audit.Record, _ []byte) error {
		if !pruned {
			pruned = true
			if err := os.WriteFile(audit.PrunedName(path), prunedLines, 0o600); err != nil {
				t.Fatal(err)
			}
			for _, r := range rot[:2] {
				if err := os.Remove(r.Path); err != nil {
					t.Fatal(err)
				}
			}
		}
		seqs = append(seqs, r.Seq)
		return nil
	}}
	_, _, _, _, err = verifyLog(files, path, opts)
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 && err == nil {
			t.Fatalf("verifyLog passed, giving show records %d then %d: %d to %d were never shown", seqs[i-1], seqs[i], seqs[i-1]+1, seqs[i]-1)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "were pruned (audit.max_files) while") {
		t.Fatalf("verifyLog err %v, want the pruned records named", err)
	}
}
