package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/aios-host/aios-host/internal/fsperm"
)

// PrunedName is the file beside the log at path (beside the file it
// links to, for a link: logFile) where the Writer keeps,
// for each rotated file it deletes (Options.MaxFiles), the anchor of that
// file's last record: "<stem>.pruned.jsonl", e.g. audit.pruned.jsonl. It is
// not named like a rotated file, so RotatedFiles never lists it.
func PrunedName(path string) string {
	stem, ext := splitExt(logFile(path))
	if ext == "" {
		ext = ".jsonl"
	}
	return stem + ".pruned" + ext
}

// Pruned is one line of PrunedName's file: a rotated file the Writer
// deleted, and the anchor of its last record (what verifying the files
// that remain needs as VerifyOptions.After).
type Pruned struct {
	File     string `json:"file"` // the base name of the deleted file
	First    uint64 `json:"first"`
	Last     uint64 `json:"last"`
	Anchor   string `json:"anchor"` // SEQ:HASH of its last record
	PrunedAt string `json:"pruned_at"`
}

// maxPrunedBytes bounds the pruned file a reader takes (a line is about
// 200 bytes: a million prunings).
const maxPrunedBytes = 256 << 20

// PrunedAnchor returns the anchor the Writer kept of record seq when it
// deleted the rotated file that ended with it (ok false when it kept none:
// no file ending at seq was pruned, or there is no pruned file). Verifying
// the files that remain, from record seq+1 on, takes it as
// VerifyOptions.After.
func PrunedAnchor(path string, seq uint64) (a Anchor, ok bool, err error) {
	err = scanPruned(path, func(got Anchor) {
		if got.Seq == seq {
			a, ok = got, true // the last line for seq wins
		}
	})
	if err != nil {
		return Anchor{}, false, err
	}
	return a, ok, nil
}

// LastPruned returns the anchor of the newest record the Writer pruned
// (the highest seq of the pruned file; ok false when there is none).
func LastPruned(path string) (a Anchor, ok bool, err error) {
	err = scanPruned(path, func(got Anchor) {
		if !ok || got.Seq >= a.Seq {
			a, ok = got, true
		}
	})
	if err != nil {
		return Anchor{}, false, err
	}
	return a, ok, nil
}

// scanPruned calls fn with the anchor of each line of the pruned file of
// the log at path, in order (nothing when there is no pruned file).
func scanPruned(path string, fn func(Anchor)) error {
	name := PrunedName(path)
	f, err := openRegular(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxPrunedBytes))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	// A last line without its newline is an append cut by a crash or a
	// full disk: the file it names was not deleted (the line is fsynced
	// before the deletion), so it is skipped, and appendPruned cuts it.
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF {
			return len(data), nil, nil
		}
		return 0, nil, nil
	})
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var p Pruned
		if err := json.Unmarshal(line, &p); err != nil {
			return fmt.Errorf("%s:%d: not a pruned-file record: %v", name, n, err)
		}
		got, err := ParseAnchor(p.Anchor)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", name, n, err)
		}
		fn(got)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// FirstSeq returns the seq of the first record of the log file at path (0
// when it holds none).
func FirstSeq(path string) (uint64, error) {
	r, err := firstRecord(path)
	if errors.Is(err, io.EOF) {
		return 0, nil
	}
	return r.Seq, err
}

// firstRecord reads and checks the first line of a log file (io.EOF when
// the file is empty).
func firstRecord(path string) (record, error) {
	f, err := openRegular(path)
	if err != nil {
		return record{}, err
	}
	defer f.Close()
	line, err := readLine(bufio.NewReaderSize(io.NewSectionReader(f, 0, MaxLineBytes+1), 64<<10))
	if err != nil {
		if err == io.EOF {
			return record{}, io.EOF
		}
		return record{}, fmt.Errorf("%s: its first record: %w", path, err)
	}
	r, reason := checkLine(line)
	if reason != "" {
		return record{}, fmt.Errorf("%s: its first record is damaged (%s)", path, reason)
	}
	return r, nil
}

// openRegular opens path for reading when it is a regular file (or a
// symbolic link to one): opening a FIFO blocks until a writer opens it, and
// the pruner, which Close waits for, or audit verify would hang there.
func openRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fsperm.Kind(st.Mode()))
	}
	return os.Open(path)
}

// pruneLoop deletes the oldest rotated files while more than
// Options.MaxFiles are left: once at Open, then after each rotation
// (pruneKick). It ends when pruneKick is closed (Close).
func (w *Writer) pruneLoop() {
	defer close(w.pruneDone)
	for range w.pruneKick {
		if err := w.prune(); err != nil {
			w.opts.Logger.Warn("audit: rotated files not pruned; they are kept", "path", w.path, "max_files", w.opts.MaxFiles, "err", err)
		}
	}
}

// prune deletes the oldest rotated files of the log until MaxFiles are
// left. Before deleting a file it checks that the file verifies and that
// the file after it follows it (names, seqs and hashes: a chain broken
// there is evidence and is kept), and appends the anchor of its last record to the pruned file,
// fsynced, so that verifying what remains can start from it.
func (w *Writer) prune() error {
	files, err := RotatedFiles(w.path)
	if err != nil {
		return err
	}
	var done Anchor // the newest record pruned before
	if len(files) > w.opts.MaxFiles {
		var err error
		if done, _, err = LastPruned(w.path); err != nil {
			return err
		}
	}
	for len(files) > w.opts.MaxFiles {
		old, next := files[0], files[1]
		if next.First != old.Last+1 {
			return fmt.Errorf("%s ends at record %d but the next rotated file, %s, starts at %d", old.Path, old.Last, next.Path, next.First)
		}
		last, err := lastRecord(old.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", old.Path, err)
		}
		first, err := firstRecord(next.Path)
		if err != nil {
			return err
		}
		if last.Seq != old.Last || first.Seq != next.First {
			return fmt.Errorf("%s holds records to %d and %s from %d, not what their names say", old.Path, last.Seq, next.Path, first.Seq)
		}
		if first.Prev != last.Hash {
			return fmt.Errorf("%s does not follow %s: its first record's prev is %s, the last record's hash %s", next.Path, old.Path, first.Prev, last.Hash)
		}
		anchor := Anchor{Seq: last.Seq, Hash: last.Hash}
		// The whole file must verify, not only its join to the next: a
		// record edited in its middle is evidence too, and deleting the
		// file would delete it. It is read once, after its rotation.
		head, err := firstRecord(old.Path)
		if err != nil {
			return err
		}
		after := Anchor{}
		if head.Seq > 1 {
			after = Anchor{Seq: head.Seq - 1, Hash: head.Prev}
		}
		// After a pruning, the oldest file left must follow the file
		// pruned last (or be it, when the host stopped between the anchor
		// and the deletion): else files were removed by someone else, and
		// pruning on would give verify an anchor past the gap.
		if done.Seq != 0 && after != done && anchor != done {
			if done.Seq < after.Seq {
				return fmt.Errorf("%s starts at record %d but the last file pruned ended at %d (%s): %s missing", old.Path, head.Seq, done.Seq, PrunedName(w.path), records(done.Seq+1, after.Seq, "is", "are"))
			}
			return fmt.Errorf("%s (records %d to %d) does not follow the last file pruned, which ended at %s (%s)", old.Path, head.Seq, last.Seq, done, PrunedName(w.path))
		}
		if _, got, _, err := VerifyFiles([]string{old.Path}, VerifyOptions{After: after, More: true}); err != nil {
			return fmt.Errorf("%s does not verify: %w", old.Path, err)
		} else if got != anchor {
			return fmt.Errorf("%s does not verify: it ends at %s, its last record is %s", old.Path, got, anchor)
		}
		if err := appendPruned(PrunedName(w.path), Pruned{File: filepath.Base(old.Path), First: old.First, Last: old.Last,
			Anchor: anchor.String(), PrunedAt: time.Now().UTC().Format(time.RFC3339)}); err != nil {
			return err
		}
		if err := os.Remove(old.Path); err != nil {
			return err
		}
		syncDir(filepath.Dir(old.Path))
		done = anchor
		w.opts.Logger.Info("audit log file pruned", "path", old.Path, "records", fmt.Sprintf("%d-%d", old.First, old.Last),
			"anchor", anchor.String(), "kept_in", PrunedName(w.path))
		files = files[1:]
	}
	return nil
}

// appendPruned appends p as a line to the pruned file name and fsyncs it
// (and, when it was created, its folder).
func appendPruned(name string, p Pruned) error {
	line, err := json.Marshal(p)
	if err != nil {
		return err
	}
	st, statErr := os.Stat(name)
	if statErr == nil && !st.Mode().IsRegular() {
		// Not opened: opening a FIFO for writing blocks until someone
		// reads it, and Close waits for the pruner.
		return fmt.Errorf("%s is not a regular file (%s)", name, fsperm.Kind(st.Mode()))
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	st, err = f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return err
		}
		return fmt.Errorf("%s is not a regular file", name)
	}
	err = cutTornLine(f, st.Size())
	if err == nil {
		_, err = f.Write(append(line, '\n'))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if statErr != nil {
		syncDir(filepath.Dir(name))
	}
	return nil
}

// cutTornLine cuts what follows the last newline of the pruned file f of
// size bytes: the start of a line whose append a crash or a full disk cut
// (scanPruned skips it). Appending after it would glue the new line onto
// it, and the file would no longer parse.
func cutTornLine(f *os.File, size int64) error {
	if size == 0 {
		return nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	// A line is about 200 bytes; look back far enough for any.
	from := max(size-(64<<10)-1, 0)
	buf := make([]byte, size-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		return err
	}
	i := bytes.LastIndexByte(buf, '\n')
	if i < 0 && from > 0 {
		return fmt.Errorf("its last %d bytes are not a line", len(buf))
	}
	return f.Truncate(from + int64(i) + 1)
}
