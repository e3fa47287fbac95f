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

// TestShowPrunedMidRead: when the host prunes files the reading has
// not reached yet while it reads an older one (audit show of a log whose
// host starts with a lower audit.max_files), the records of those files
// were never given to show, yet the retry from the pruned anchor passed:
// show printed the log with a silent gap. It fails now, naming the seqs.
func TestShowPrunedMidRead(t *testing.T) {
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

// TestVerifyFIFOInLog: a FIFO named like a rotated file beside the
// log made `audit verify` (no FILE) block forever opening it; it is an
// error naming the file now.
func TestVerifyFIFOInLog(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	writeRotated(t, path, 20, 0)
	rot, _ := audit.RotatedFiles(path)
	if err := os.Remove(rot[0].Path); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(rot[0].Path); err != nil {
		t.Skip(err)
	}
	type res struct {
		code int
		errs string
	}
	done := make(chan res, 1)
	go func() {
		code, _, errs := e.run("", "audit", "verify")
		done <- res{code, errs}
	}()
	select {
	case r := <-done:
		if r.code == 0 || !strings.Contains(r.errs, rot[0].Path) || !strings.Contains(r.errs, "not a regular file") {
			t.Fatalf("audit verify: exit %d, %s", r.code, r.errs)
		}
	case <-time.After(5 * time.Second):
		f, _ := os.OpenFile(rot[0].Path, os.O_WRONLY, 0) // let the reader go
		f.Close()
		t.Fatal("audit verify hung opening a FIFO named like a rotated file")
	}
}
