package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// logRotated writes n records in groups of three to a log that rotates at
// 2000 bytes, keeping maxFiles rotated files.
func logRotated(t *testing.T, path string, from, n, maxFiles int, logger *slog.Logger) {
	t.Helper()
	w, err := Open(path, Options{MaxBytes: 2000, MaxFiles: maxFiles, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < from+n; i++ {
		w.Log(entry(i))
		if i%3 == 0 {
			if err := w.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMaxFilesPrunes: with MaxFiles 2 at most two rotated files are left;
// the pruned file keeps the anchor of each deleted file's last record, and
// the files left verify from the anchor before them (and not without it).
func TestMaxFilesPrunes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	logRotated(t, path, 1, 60, 2, nil)
	rot, err := RotatedFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rot) != 2 {
		t.Fatalf("%d rotated files left, want MaxFiles (2): %v", len(rot), rot)
	}
	if rot[0].First == 1 {
		t.Fatalf("the oldest file (from record 1) was kept: %v", rot)
	}
	a, ok, err := PrunedAnchor(path, rot[0].First-1)
	if err != nil || !ok {
		t.Fatalf("PrunedAnchor(%d) = %v, %v, %v", rot[0].First-1, a, ok, err)
	}
	files := logFiles(t, path)
	n, last, _, err := VerifyFiles(files, VerifyOptions{After: a})
	if err != nil || last.Seq != 60 || n != int(60-a.Seq) {
		t.Fatalf("the files left, after the pruned anchor %v: %d records, last %v, %v", a, n, last, err)
	}
	var ve *VerifyError
	if _, _, _, err := VerifyFiles(files, VerifyOptions{}); !errors.As(err, &ve) {
		t.Fatalf("the files left verified from record 1: %v", err)
	}
	// A wrong anchor (another record's hash) fails at the join.
	wrong := a
	wrong.Hash = last.Hash
	if _, _, _, err := VerifyFiles(files, VerifyOptions{After: wrong}); !errors.As(err, &ve) {
		t.Fatalf("a wrong anchor: %v", err)
	}
	// Every pruned file is listed, in order, joining the next.
	data, err := os.ReadFile(PrunedName(path))
	if err != nil {
		t.Fatal(err)
	}
	next := uint64(1)
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var p Pruned
		if err := json.Unmarshal(line, &p); err != nil {
			t.Fatalf("pruned line %q: %v", line, err)
		}
		pa, err := ParseAnchor(p.Anchor)
		if p.First != next || err != nil || pa.Seq != p.Last || p.File != filepath.Base(RotatedName(path, p.First, p.Last)) {
			t.Fatalf("pruned line %+v, want a file from record %d", p, next)
		}
		if _, err := os.Stat(filepath.Join(dir, p.File)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s is listed as pruned but is still there (%v)", p.File, err)
		}
		next = p.Last + 1
	}
	if next != rot[0].First {
		t.Fatalf("pruned files end at %d, the first file left starts at %d", next-1, rot[0].First)
	}
	// PrunedAnchor of a seq no pruned file ended with.
	if _, ok, err := PrunedAnchor(path, rot[0].First); ok || err != nil {
		t.Fatalf("PrunedAnchor of a record inside a file: ok %v, %v", ok, err)
	}
}

// TestMaxFilesAtOpen: a log rotated with every file kept is pruned when it
// is opened again with MaxFiles, and the chain continues.
func TestMaxFilesAtOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	logRotated(t, path, 1, 40, 0, nil)
	rot, _ := RotatedFiles(path)
	if len(rot) < 3 {
		t.Fatalf("%d rotated files, want several", len(rot))
	}
	if _, err := os.Stat(PrunedName(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("MaxFiles 0 wrote a pruned file (%v)", err)
	}
	logRotated(t, path, 41, 1, 1, nil)
	rot, _ = RotatedFiles(path)
	if len(rot) != 1 {
		t.Fatalf("%d rotated files after opening with MaxFiles 1", len(rot))
	}
	a, ok, err := PrunedAnchor(path, rot[0].First-1)
	if !ok || err != nil {
		t.Fatalf("no pruned anchor before record %d: %v", rot[0].First, err)
	}
	if _, last, _, err := VerifyFiles(logFiles(t, path), VerifyOptions{After: a}); err != nil || last.Seq != 41 {
		t.Fatalf("chain after pruning at Open: last %v, %v", last, err)
	}
}

// TestPruneKeepsBrokenChain: a rotated file that the next one does not
// follow (edited, or a file removed between them) is evidence: nothing is
// deleted, and the writer says why.
func TestPruneKeepsBrokenChain(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, rot []RotatedFile)
		want  string
	}{
		{"edited last record", func(t *testing.T, rot []RotatedFile) {
			data, _ := os.ReadFile(rot[0].Path)
			lines := bytes.SplitAfter(data, []byte("\n"))
			last := lines[len(lines)-2]
			i := bytes.Index(last, []byte(`"tool":"`))
			last[i+8] ^= 1 // the hash still checks out against nothing: the next file's prev differs
			if err := os.WriteFile(rot[0].Path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "damaged"},
		{"a file removed between", func(t *testing.T, rot []RotatedFile) {
			if err := os.Remove(rot[1].Path); err != nil {
				t.Fatal(err)
			}
		}, "starts at"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "audit.jsonl")
			logRotated(t, path, 1, 40, 0, nil)
			rot, _ := RotatedFiles(path)
			c.spoil(t, rot)
			before, _ := RotatedFiles(path)
			var logged testutil.SyncBuffer
			logRotated(t, path, 41, 1, 1, slog.New(slog.NewTextHandler(&logged, nil)))
			after, _ := RotatedFiles(path)
			if len(after) != len(before) {
				t.Fatalf("%d of %d rotated files deleted past a broken chain", len(before)-len(after), len(before))
			}
			if !strings.Contains(logged.String(), "not pruned") || !strings.Contains(logged.String(), c.want) {
				t.Fatalf("the writer's log does not say why nothing was pruned (want %q):\n%s", c.want, logged.String())
			}
		})
	}
}

// TestPrunedAnchorBadFile: a damaged pruned file is an error naming it and
// its line, not a silent "no anchor".
func TestPrunedAnchorBadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	for name, body := range map[string]string{
		"not json":   "{\"file\":\n",
		"bad anchor": `{"file":"audit.1-3.jsonl","first":1,"last":3,"anchor":"3:md5:00"}` + "\n",
	} {
		if err := os.WriteFile(PrunedName(path), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, ok, err := PrunedAnchor(path, 3)
		if ok || err == nil || !strings.Contains(err.Error(), PrunedName(path)+":1") {
			t.Errorf("%s: PrunedAnchor = %v, %v; want an error naming %s:1", name, ok, err, PrunedName(path))
		}
	}
	if got := PrunedName(filepath.Join(dir, "log")); got != filepath.Join(dir, "log.pruned.jsonl") {
		t.Errorf("PrunedName of a log without .jsonl = %s", got)
	}
}

// FuzzPrunedAnchor: any pruned file gives an anchor of the seq asked for,
// or none, or an error naming the file; never a panic.
func FuzzPrunedAnchor(f *testing.F) {
	f.Add([]byte(`{"file":"audit.1-3.jsonl","first":1,"last":3,"anchor":"3:sha256:`+strings.Repeat("ab", 32)+`","pruned_at":"x"}`+"\n"), uint64(3))
	f.Add([]byte("\n\n{}\n"), uint64(0))
	f.Add([]byte(`{"anchor":"3:sha256:`+strings.Repeat("0", 64)+`"}`), uint64(4))
	dir := f.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	f.Fuzz(func(t *testing.T, data []byte, seq uint64) {
		if err := os.WriteFile(PrunedName(path), data, 0o600); err != nil {
			t.Fatal(err)
		}
		a, ok, err := PrunedAnchor(path, seq)
		switch {
		case err != nil:
			if ok || !strings.Contains(err.Error(), PrunedName(path)) {
				t.Fatalf("error %v with ok %v (want the file named, ok false)", err, ok)
			}
		case ok:
			if a.Seq != seq {
				t.Fatalf("asked for %d, got %v", seq, a)
			}
			if _, err := ParseAnchor(a.String()); err != nil {
				t.Fatalf("anchor %v does not parse: %v", a, err)
			}
		}
	})
}
