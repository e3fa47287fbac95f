package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// VerifyError names the first line of a log that breaks the chain.
type VerifyError struct {
	Line   int    // 1-based line number
	Reason string // what is wrong with it

	incomplete bool // the last line has no newline (readLine)
	added      bool // ... and does not begin as a record does
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("audit log line %d: %s", e.Line, e.Reason)
}

// MaxLineBytes bounds one record line when verifying.
const MaxLineBytes = 1 << 20

// Verify reads a whole log and checks every record: well-formed canonical
// JSON with exactly the known keys, seq equal to its line number, prev equal
// to the previous record's hash ("" for the first), and hash equal to the
// SHA-256 of the record without hash. It returns the number of records, and
// a *VerifyError for the first line that fails (an I/O error is returned as
// is). An edited record fails its own hash check; a deleted, inserted or
// reordered record breaks the seq or prev of the line where it happened.
//
// Verify cannot see records cut from the end of the log: compare the count
// (or the last hash, see Head) with a copy kept elsewhere for that.
func Verify(r io.Reader) (int, error) {
	n, _, err := verify(r, VerifyOptions{})
	return n, err
}

// Head verifies the log like Verify and also returns the hash of its last
// record ("" for an empty log), which can be kept elsewhere as an anchor.
func Head(r io.Reader) (records int, lastHash string, err error) {
	n, last, err := verify(r, VerifyOptions{})
	return n, last.Hash, err
}

// Anchor is a record's seq and hash kept outside the log (what Head
// returned at some point, e.g. "1234:sha256:…" copied to another system).
type Anchor struct {
	Seq  uint64
	Hash string
}

// ParseAnchor reads "SEQ:sha256:<64 hex>".
func ParseAnchor(s string) (Anchor, error) {
	seq, hash, ok := strings.Cut(s, ":")
	n, err := strconv.ParseUint(seq, 10, 64)
	if !ok || err != nil || n == 0 {
		return Anchor{}, fmt.Errorf("anchor %q: want SEQ:HASH, SEQ a record number from 1 (e.g. 1234:sha256:…)", s)
	}
	if len(hash) != len(hashPrefix)+64 || !strings.HasPrefix(hash, hashPrefix) || strings.Trim(hash[len(hashPrefix):], "0123456789abcdef") != "" {
		return Anchor{}, fmt.Errorf("anchor %q: hash %q is not sha256:<64 lower-case hex digits>", s, hash)
	}
	return Anchor{Seq: n, Hash: hash}, nil
}

func (a Anchor) String() string { return strconv.FormatUint(a.Seq, 10) + ":" + a.Hash }

// VerifyAnchored verifies the log like Head and also checks it against an
// anchor: record a.Seq must exist and have hash a.Hash. That catches what
// Verify alone cannot: records cut from the end (the log is shorter than
// the anchor), and a log rewritten with fresh hashes from some record on
// (the anchored record's hash changed). Records appended after the anchor
// are fine.
func VerifyAnchored(r io.Reader, a Anchor) (records int, lastHash string, err error) {
	n, last, err := verify(r, VerifyOptions{Anchor: &a})
	return n, last.Hash, err
}

// VerifyOptions verify one file of a log that rotation split into several
// (see Options.MaxBytes), or check an anchor.
type VerifyOptions struct {
	// After is the record before the file's first: its first record must
	// have seq After.Seq+1 and prev After.Hash. The zero value means the
	// file starts the log (seq 1, prev "").
	After Anchor
	// Anchor, when set, must match the record of its seq if the file holds
	// it; when the file ends before it and More is false, records were cut
	// from the end.
	Anchor *Anchor
	// More says later files continue the log (no cut-from-the-end check).
	More bool
	// Each, when set, is called with every record once it is verified
	// (its own hash and its link to the one before), in order, and its
	// line without the newline (valid during the call only). An error it
	// returns ends the verification with that error.
	Each func(rec *Record, line []byte) error

	// tailChanged, when set (VerifyFiles, for the last file), reports
	// whether the file changed after verify read an incomplete last line:
	// then that line is a write in progress (a running host), not a crash,
	// and verify ends before it.
	tailChanged func() bool
	// named, when set (VerifyFiles, for a file named like a rotated
	// one), is the first and last seq the file's name says it holds.
	named [2]uint64
}

// VerifyWith verifies one file of a log under o. It returns the number of
// records in the file and the anchor of its last record (o.After for an
// empty file); a *VerifyError's Line is the line number in this file.
func VerifyWith(r io.Reader, o VerifyOptions) (records int, last Anchor, err error) {
	return verify(r, o)
}

func verify(r io.Reader, o VerifyOptions) (int, Anchor, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	base := o.After.Seq
	prev := o.After.Hash
	line := 0
	var scratch []byte
	last := func() Anchor { return Anchor{Seq: base + uint64(line), Hash: prev} }
	if head, _ := br.Peek(6); compression(head) != "" {
		// Not "invalid character '\x1f'", nor, with no newline in
		// the compressed bytes, a crash's incomplete record.
		return 0, last(), &VerifyError{Line: 1, Reason: fmt.Sprintf("the file is %s-compressed (logrotate's compress, or by hand), not a log as the host writes it: verify its decompressed copy", compression(head))}
	}
	for {
		raw, err := readLine(br)
		if err != nil && err != io.EOF && !o.More && o.tailChanged != nil && isIncomplete(err) && o.tailChanged() {
			err = io.EOF
		}
		if err == io.EOF {
			if a := o.Anchor; a != nil && !o.More && base+uint64(line) < a.Seq {
				return line, last(), &VerifyError{Line: line + 1, Reason: fmt.Sprintf(
					"the log ends after record %d but the anchor %s names record %d: records were cut from the end", base+uint64(line), a, a.Seq)}
			}
			return line, last(), nil
		}
		line++
		if err != nil {
			var ve *VerifyError
			if errors.As(err, &ve) {
				ve.Line = line
				if ve.incomplete && !ve.added && o.named[1] != 0 {
					// A rotated file: fsynced whole before it was
					// renamed so, never written or repaired after.
					ve.Reason = fmt.Sprintf("the file ends inside record %d (no newline after it), but its name says it holds records %d to %d: the host fsyncs a file whole before it renames it so, and never writes to it or repairs it after, so it was cut or damaged after its rotation", base+uint64(line), o.named[0], o.named[1])
				}
			}
			line--
			return line, last(), err
		}
		rec, reason := checkLineScratch(raw, &scratch)
		if reason == "" {
			reason = checkLink(&rec, base+uint64(line), prev, line, o.named)
		}
		if reason == "" && o.Anchor != nil && rec.Seq == o.Anchor.Seq && rec.Hash != o.Anchor.Hash {
			reason = fmt.Sprintf("hash %s differs from the anchor %s: the log was rewritten up to this record", rec.Hash, o.Anchor)
		}
		if reason != "" {
			line--
			return line, last(), &VerifyError{Line: line + 1, Reason: reason}
		}
		prev = rec.Hash
		if o.Each != nil {
			if err := o.Each(&rec, raw); err != nil {
				return line, last(), err
			}
		}
	}
}

// checkLink checks that rec is record want of the log, chained to prev;
// line is its line number in the file; named is the first and last seq
// the file's name says it holds (zeros: not named so).
func checkLink(rec *record, want uint64, prev string, line int, named [2]uint64) string {
	if rec.Seq != want {
		what := "a record before it was deleted or records were reordered"
		switch {
		case line == 1 && named[0] == want && rec.Seq > want:
			// The file's name says it starts where it should: its
			// own first records are gone, not a file before it.
			what = fmt.Sprintf("its name says it holds records %d to %d, but it starts at record %d: %s removed from its start", want, named[1], rec.Seq, records(want, rec.Seq-1, "was", "were"))
		case line == 1 && want > 1 && rec.Seq < want:
			// The first line of a file that follows another (or
			// --after): nothing was inserted in it.
			what = fmt.Sprintf("the files do not join: this file starts at record %d, not after record %d (a file given twice or out of order, another log's file, or --after naming a record the file does not follow)", rec.Seq, want-1)
		case line == 1 && want > 1:
			what = fmt.Sprintf("the files do not join: %s missing before this file (a file before it removed or not given, or --after naming an older record)", records(want, rec.Seq-1, "is", "are"))
		case line > 1 && rec.Seq == want-1 && rec.Hash == prev:
			what = fmt.Sprintf("the same record as line %d, given twice", line-1)
		case line > 1 && rec.Seq == 1 && rec.Prev == "":
			what = fmt.Sprintf("the first record of a log, after record %d: a log (this one again, or another) was appended to this file", want-1)
		case rec.Seq < want && rec.Seq > want-uint64(line):
			// A record this file had already: the line is that
			// record again (copied in) or moved back, not one
			// "inserted before it", which sent the reader to the
			// lines above, all of which verified.
			what = fmt.Sprintf("this line is record %d (line %d) again, or that record was moved down here: a record copied into the log or records reordered", rec.Seq, uint64(line)-(want-rec.Seq))
		case rec.Seq < want:
			what = "a record from before this file, copied into it, or records were reordered"
		}
		return fmt.Sprintf("seq is %d, want %d: %s", rec.Seq, want, what)
	}
	if rec.Prev != prev {
		switch {
		case want == 1:
			return fmt.Sprintf("prev is %q, want \"\" for the first record: records before it were removed", rec.Prev)
		case line == 1:
			return fmt.Sprintf("prev %q does not match the hash of record %d (%q) that the file should follow: the files do not join", rec.Prev, want-1, prev)
		}
		return fmt.Sprintf("prev %q does not match the hash of line %d (%q): line %d was edited and its hash recomputed, or this record was replaced (e.g. by one from another log)", rec.Prev, line-1, prev, line-1)
	}
	return ""
}

// isIncomplete says whether err is readLine's: a last line without a
// newline.
func isIncomplete(err error) bool {
	var ve *VerifyError
	return errors.As(err, &ve) && ve.incomplete
}

// readLine returns one line without its newline. A last line without a
// newline is an incomplete write.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxLineBytes {
			if allZero(buf) {
				return nil, &VerifyError{Reason: fmt.Sprintf("more than %d zero bytes where records should be: %s", MaxLineBytes, zerosWhy)}
			}
			return nil, &VerifyError{Reason: fmt.Sprintf("line longer than %d bytes", MaxLineBytes)}
		}
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if len(buf) == 0 {
				return nil, io.EOF
			}
			if allZero(buf) {
				return nil, &VerifyError{Reason: fmt.Sprintf("%d zero bytes at the end, no newline: %s", len(buf), zerosWhy), incomplete: true}
			}
			if _, reason := checkLine(buf); reason == "" {
				return nil, &VerifyError{Reason: fmt.Sprintf("incomplete last record (%d bytes): only its newline is missing, a crash just before it; the record is whole, and the host adds the newline when it next opens the log (audit.repair_tail)", len(buf)), incomplete: true}
			}
			if rec := bytes.TrimRight(buf, "\x00"); len(rec) > 0 && len(rec) < len(buf) {
				if _, reason := checkLine(rec); reason == "" {
					return nil, &VerifyError{Reason: fmt.Sprintf("incomplete last record (%d bytes): its newline is missing and %d zero bytes follow it, %s; the record is whole, and the host cuts the zeros and adds the newline when it next opens the log (audit.repair_tail)", len(rec), len(buf)-len(rec), zerosWhy), incomplete: true}
				}
				if crashTail(rec) { // the beginning of a record, as Open cuts it
					return nil, &VerifyError{Reason: fmt.Sprintf("incomplete last record: %d bytes of a record, then %d zero bytes, no newline: %s; the host cuts them when it next opens the log (audit.repair_tail)", len(rec), len(buf)-len(rec), zerosWhy), incomplete: true}
				}
			}
			if !crashTail(buf) { // as Open says of it
				return nil, &VerifyError{Reason: fmt.Sprintf("the last line (%d bytes, no newline) does not begin as a record does (%s): not what a crash during a write leaves, but bytes added after the last record", len(buf), clipQuote(buf)), incomplete: true, added: true}
			}
			return nil, &VerifyError{Reason: fmt.Sprintf("incomplete last record (%d bytes, no newline): a crash during a write, or the log was cut", len(buf)), incomplete: true}
		default:
			return nil, err
		}
	}
}

// compression names the format whose magic number head starts with
// (gzip, zstd, xz, bzip2), or "". No record starts with these bytes.
func compression(head []byte) string {
	for _, c := range []struct{ magic, name string }{
		{"\x1f\x8b", "gzip"},
		{"\x28\xb5\x2f\xfd", "zstd"},
		{"\xfd7zXZ\x00", "xz"},
		{"BZh", "bzip2"},
	} {
		if bytes.HasPrefix(head, []byte(c.magic)) {
			return c.name
		}
	}
	return ""
}

// isPrunedLine says whether raw is a line of PrunedName's file.
func isPrunedLine(raw []byte) bool {
	var p Pruned
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(&p) == nil && p.File != "" && p.Anchor != ""
}

// zerosWhy says what zeros in a log are.
const zerosWhy = "what a power loss (or a crash of the machine) leaves of writes that were not yet on the disk"

// allZero says whether b holds only zero bytes.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func checkLine(raw []byte) (record, string) {
	var scratch []byte
	return checkLineScratch(raw, &scratch)
}

// checkLineScratch checks one line on its own: JSON, keys, canonical form,
// hash. It returns the decoded record, or a reason.
func checkLineScratch(raw []byte, scratch *[]byte) (record, string) {
	var r record
	if len(bytes.TrimSpace(raw)) == 0 {
		return r, "empty line"
	}
	// Say what happened to a converted file rather than "edited".
	if bytes.HasSuffix(raw, []byte("\r")) {
		return r, "line ends with a carriage return: the file's line endings were converted to CRLF (an editor, a file transfer or git autocrlf); records are written with \\n only"
	}
	if bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		return r, "line starts with a UTF-8 byte order mark: the file was saved by an editor that adds one"
	}
	if raw[0] == 0 {
		return r, "the line starts with zero bytes: " + zerosWhy
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// Not "unexpected EOF": the line, not the file, ended.
			return r, "not a valid record: the line ends in the middle of the record (a line break put into it, as an editor or a mail client wrapping long lines does, or the rest of it cut)"
		}
		if isPrunedLine(raw) {
			return r, "not a record but the anchor of a pruned file (audit.max_files), a line of the log's .pruned.jsonl file: leave it out (audit verify without FILE reads it itself)"
		}
		return r, "not a valid record: " + err.Error()
	}
	if rest := bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n"); len(rest) > 0 { // dec.More is false before a ] or }
		if bytes.HasPrefix(rest, []byte(recordStart)) {
			// Not "trailing data": what follows is the next record.
			return r, "the line holds two records: the line break after the first was removed (an editor joining lines, or a tool that strips line breaks)"
		}
		return r, fmt.Sprintf("trailing data after the record: %.20q", rest)
	}
	if !strings.HasPrefix(r.Hash, "sha256:") || len(r.Hash) != 71 {
		return r, fmt.Sprintf("hash %q is not a sha256 digest", r.Hash)
	}
	if _, err := time.Parse(time.RFC3339Nano, r.Time); err != nil {
		return r, fmt.Sprintf("time %q is not RFC 3339: the record was edited", r.Time)
	}
	var want string
	want, *scratch = hashRecord(&r, *scratch)
	if want != r.Hash {
		return r, fmt.Sprintf("hash mismatch (record says %s, content hashes to %s): the record was edited", r.Hash, want)
	}
	*scratch = appendRecord((*scratch)[:0], &r, true)
	if !bytes.Equal(*scratch, raw) {
		return r, "record is not in canonical form (keys missing, repeated, reordered or re-spaced): the line was edited"
	}
	return r, ""
}

// records is "record A was" for one record, "records A to B were" for
// more (with the verb given for each): "records 1926 to 1926 are missing"
// read as a range.
func records(a, b uint64, one, more string) string {
	if a == b {
		return fmt.Sprintf("record %d %s", a, one)
	}
	return fmt.Sprintf("records %d to %d %s", a, b, more)
}
