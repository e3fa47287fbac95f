package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RotatedName is the name a full log file at path gets when the Writer
// rotates it (Options.MaxBytes): "<stem>.<first>-<last>.jsonl" beside it,
// where stem is path without ".jsonl" and first and last are the seq of
// its first and last record, e.g. audit.1-498213.jsonl.
func RotatedName(path string, first, last uint64) string {
	stem, ext := splitExt(path)
	return stem + "." + strconv.FormatUint(first, 10) + "-" + strconv.FormatUint(last, 10) + ext
}

func splitExt(path string) (stem, ext string) {
	if s, ok := strings.CutSuffix(path, ".jsonl"); ok {
		return s, ".jsonl"
	}
	return path, ""
}

// RotatedFile is one file that rotation split off a log.
type RotatedFile struct {
	Path        string
	First, Last uint64
}

// logFile is the file of the log at path: path, or, when path is a
// symbolic link (to put the log on another disk), the file it points to
// (through every link). The Writer rotates that file, makes the next
// one there and keeps the pruned file beside it, and RotatedFiles and
// PrunedName look there: renaming the link at the first rotation put
// every later file of the log in the link's folder, and pruning deleted
// links and left the files they pointed to. (Links are followed
// everywhere in the path then.)
func logFile(path string) string {
	if st, err := os.Lstat(path); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return path
	}
	// As the kernel follows it: a relative target's ".." is taken from
	// the link's real folder, not by cutting the path given.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path // a link to nothing yet: Open makes the file, through it
}

// RotatedFiles lists the files rotated off the log at path, oldest (lowest
// first seq) first. Verifying them in this order, then path itself, with
// each file's VerifyOptions.After the previous file's last record, checks
// the whole chain.
func RotatedFiles(path string) ([]RotatedFile, error) {
	stem, ext := splitExt(logFile(path))
	// The folder's names, not a glob of the stem: escaping a glob's
	// metacharacters with \ is no escape on Windows, where a folder
	// with "[" in its name then matched no rotated file.
	dir, base := filepath.Split(stem)
	ents, err := os.ReadDir(filepath.Clean(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []RotatedFile
	for _, e := range ents {
		name := e.Name()
		if len(name) < len(base)+1+len(ext) || !strings.HasPrefix(name, base+".") || !strings.HasSuffix(name, ext) {
			continue
		}
		m := filepath.Join(filepath.Clean(dir), name)
		mid := name[len(base)+1 : len(name)-len(ext)]
		a, b, ok := strings.Cut(mid, "-")
		first, err1 := strconv.ParseUint(a, 10, 64)
		last, err2 := strconv.ParseUint(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || first == 0 || last < first {
			continue // not a name RotatedName makes
		}
		out = append(out, RotatedFile{Path: m, First: first, Last: last})
	}
	slices.SortFunc(out, func(x, y RotatedFile) int {
		switch {
		case x.First < y.First:
			return -1
		case x.First > y.First:
			return 1
		}
		return strings.Compare(x.Path, y.Path)
	})
	return out, nil
}

// VerifyFiles verifies files as one log, in the order given, each file's
// first record following the previous file's last (the first file's
// following o.After). o.Anchor is checked in whichever file holds its
// record, and against the end of the last file. It returns the number of
// records verified, the anchor of the last good record, and on failure the
// file that failed with the error (a *VerifyError's Line is in that file).
//
// An anchor of a record at or before o.After lies outside the files: it is
// an error unless it is o.After itself (it cannot be checked, and was
// silently passed before); failed is then "".
func VerifyFiles(files []string, o VerifyOptions) (records int, last Anchor, failed string, err error) {
	if a := o.Anchor; a != nil && a.Seq <= o.After.Seq && *a != o.After {
		if a.Seq == o.After.Seq {
			return 0, o.After, "", fmt.Errorf("the anchor %s and the record the files follow (%s) differ: one of them is wrong", a, o.After)
		}
		return 0, o.After, "", fmt.Errorf("the anchor %s names a record before the files checked (they follow record %d): give the files that hold it", a, o.After.Seq)
	}
	for i, p := range files {
		o.More = i < len(files)-1
		o.named = [2]uint64{}
		if first, last, ok := rotatedRange(p); ok {
			o.named = [2]uint64{first, last}
		}
		n, l, err := verifyPath(p, o)
		records += n
		if err == nil {
			err = checkRotatedRange(p, n, o.After, l)
		}
		var ve *VerifyError
		if errors.As(err, &ve) && ve.Line == 1 && n == 0 {
			// A file after it holds the record it lacks: given
			// out of order (a shell's glob sorts by name).
			for _, later := range files[i+1:] {
				if first, _, ok := rotatedRange(later); ok && first == o.After.Seq+1 {
					ve.Reason += fmt.Sprintf("; %s, which starts at record %d, is given after it: the files are out of order (a shell's glob sorts them by name, not by seq; audit verify without FILE orders them)", later, first)
					break
				}
			}
		}
		if err != nil {
			return records, l, p, err
		}
		o.After = l
	}
	return records, o.After, "", nil
}

// checkRotatedRange checks that a file named like a rotated file
// (RotatedName: STEM.FIRST-LAST.jsonl) holds the records its name says:
// n records after the record after, the last one last. A rotated file
// emptied or cut short otherwise failed only at the next file's first
// line ("seq is 5417, want 3646"), which blamed the file that was whole.
func checkRotatedRange(path string, n int, after, last Anchor) error {
	first, end, ok := rotatedRange(path)
	if !ok {
		return nil
	}
	switch {
	case n == 0 && after.Seq+1 == first:
		return &VerifyError{Line: 1, Reason: fmt.Sprintf("the file is empty, but its name says it holds records %d to %d: they were removed", first, end)}
	case n > 0 && after.Seq+1 == first && last.Seq < end:
		return &VerifyError{Line: n + 1, Reason: fmt.Sprintf("the file ends at record %d, but its name says it holds records %d to %d: %s cut from its end", last.Seq, first, end, records(last.Seq+1, end, "was", "were"))}
	}
	return nil
}

// rotatedRange reads the seq range of a name RotatedName makes.
func rotatedRange(path string) (first, last uint64, ok bool) {
	stem, _ := splitExt(filepath.Base(path))
	dot := strings.LastIndexByte(stem, '.')
	if dot <= 0 {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(stem[dot+1:], "-")
	first, err1 := strconv.ParseUint(a, 10, 64)
	last, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || first == 0 || last < first {
		return 0, 0, false
	}
	return first, last, true
}

func verifyPath(path string, o VerifyOptions) (int, Anchor, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, o.After, err
	}
	defer f.Close()
	if !o.More {
		o.tailChanged = func() bool { return growing(f) }
	}
	return VerifyWith(f, o)
}

// growing reports whether f, read to its end, changes size within half a
// second: a running host is writing it. The kernel lets a reader see part
// of a write(2) in progress, so the log of a running host can seem to end
// with an incomplete record; a crash's incomplete record stays as it is.
func growing(f *os.File) bool {
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return false
	}
	for range 50 {
		if st, err := f.Stat(); err != nil || st.Size() != pos {
			return err == nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// continueFromRotated sets the chain state from the newest rotated file
// when the current file holds no record (the host stopped right after a
// rotation, or the current file was removed): its last record's seq and
// hash. A rotated file is complete (fsynced before the rename), so a
// damaged last record is refused like a damaged tail.
func (w *Writer) continueFromRotated() error {
	files, err := RotatedFiles(w.path)
	if err != nil || len(files) == 0 {
		return err
	}
	last := files[len(files)-1]
	r, err := lastRecord(last.Path)
	if err != nil {
		return fmt.Errorf("audit: continuing the chain of %s from %s: %w", w.path, last.Path, err)
	}
	w.seq, w.prev = r.Seq, append(w.prev[:0], r.Hash...)
	return nil
}

// lastRecord reads and checks the last line of a complete log file.
func lastRecord(path string) (record, error) {
	f, err := openRegular(path)
	if err != nil {
		return record{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return record{}, err
	}
	size := st.Size()
	for chunk := int64(64 << 10); ; chunk *= 2 {
		off := max(size-chunk, 0)
		buf := make([]byte, size-off)
		if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
			return record{}, err
		}
		if len(buf) == 0 || buf[len(buf)-1] != '\n' {
			return record{}, fmt.Errorf("its last record is incomplete")
		}
		body := buf[:len(buf)-1]
		i := bytes.LastIndexByte(body, '\n')
		if i < 0 && off > 0 && chunk < MaxLineBytes*2 {
			continue
		}
		r, reason := checkLine(body[i+1:])
		if reason != "" {
			return record{}, fmt.Errorf("its last record is damaged (%s)", reason)
		}
		return r, nil
	}
}

// firstSeq returns the seq of the first record of the open log f (0 when
// it has none or it cannot be read; only rotation names depend on it).
func firstSeq(f *os.File) uint64 {
	line, err := readLine(bufio.NewReaderSize(io.NewSectionReader(f, 0, MaxLineBytes+1), 64<<10))
	if err != nil {
		return 0
	}
	r, reason := checkLine(line)
	if reason != "" {
		return 0
	}
	return r.Seq
}
