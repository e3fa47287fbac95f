package audit

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepairKeepsWholeRecordWithoutNewline: a crash can cut a write
// just before a record's newline (the newline in a page that did not reach
// the disk). The record is whole and chained, yet Open (RepairTail) cut it
// as "incomplete": the record of a call that ran was lost. Now the newline
// is added and the chain goes on after it; only a record that is not whole
// or does not follow the one before is cut.
func TestRepairKeepsWholeRecordWithoutNewline(t *testing.T) {
	_, lines := writeLog(t, 3)
	for _, c := range []struct {
		name    string
		content []byte
		want    int // records after Open and one more Log
	}{
		{"last of three", join(lines)[:len(join(lines))-1], 4},
		{"only record", lines[0][:len(lines[0])-1], 2},
		// record 3 does not follow record 1: not the log's next record, cut
		{"not chained", append(join(lines[:1]), lines[2][:len(lines[2])-1]...), 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			if err := os.WriteFile(path, c.content, 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := Open(path, Options{RepairTail: true})
			if err != nil {
				t.Fatal(err)
			}
			w.Log(entry(9))
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if n, err := Verify(bytes.NewReader(data)); err != nil || n != c.want {
				t.Fatalf("after Open and one record: Verify = %d, %v; want %d records", n, err, c.want)
			}
		})
	}
}

// TestVerifyBlamesCutRotatedFile: a rotated file emptied or cut short
// (by hand, a clean-up script) failed verification only at the next
// file's first line, "seq is N, want M: a record before it was deleted",
// naming the file that was whole. The file whose name says it holds more
// than it does is named now, at the line after its last record.
func TestVerifyBlamesCutRotatedFile(t *testing.T) {
	dir := t.TempDir()
	_, lines := writeLog(t, 6)
	a := filepath.Join(dir, "audit.1-2.jsonl")
	b := filepath.Join(dir, "audit.3-4.jsonl")
	c := filepath.Join(dir, "audit.jsonl")
	for _, tc := range []struct {
		name     string
		b        []byte
		line     int
		contains string
	}{
		{"emptied", nil, 1, "the file is empty, but its name says it holds records 3 to 4"},
		{"cut", lines[2], 2, "record 4 was cut from its end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(a, join(lines[:2]), 0o600)
			os.WriteFile(b, tc.b, 0o600)
			os.WriteFile(c, join(lines[4:]), 0o600)
			_, _, failed, err := VerifyFiles([]string{a, b, c}, VerifyOptions{})
			var ve *VerifyError
			if !errors.As(err, &ve) || failed != b || ve.Line != tc.line || !strings.Contains(ve.Reason, tc.contains) {
				t.Fatalf("VerifyFiles: failed %s, %v; want %s line %d: %s", failed, err, b, tc.line, tc.contains)
			}
		})
	}
	os.WriteFile(b, join(lines[2:4]), 0o600)
	if n, _, _, err := VerifyFiles([]string{a, b, c}, VerifyOptions{}); err != nil || n != 6 {
		t.Fatalf("whole files: %d, %v", n, err)
	}
}

// TestOpenSaysLogIsBrokenBefore: Open reads only the last record of
// an existing log, so a log with a record edited or deleted in its middle
// was continued without a word: the host appended to a chain that no
// longer verifies, and nobody knew until someone ran audit verify. The
// writer now checks, in the background, what the file held when it was
// opened and says at Warn where it fails; an intact log says nothing.
func TestOpenSaysLogIsBrokenBefore(t *testing.T) {
	path, lines := writeLog(t, 5)
	open := func() string {
		t.Helper()
		var buf bytes.Buffer
		w, err := Open(path, Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
		if err != nil {
			t.Fatal(err)
		}
		w.Log(entry(9))
		if w.checkDone != nil {
			<-w.checkDone // Close would stop it
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	if out := open(); strings.Contains(out, "fails verification") {
		t.Fatalf("an intact log: %s", out)
	}
	edited := bytes.Replace(lines[2], []byte(`"tool":"t3"`), []byte(`"tool":"t8"`), 1)
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(data, lines[2], edited, 1), 0o600)
	if out := open(); !strings.Contains(out, "fails verification") || !strings.Contains(out, "line=3") || !strings.Contains(out, "hash mismatch") {
		t.Fatalf("a log edited at line 3: %s", out)
	}
}

// TestRepairCutsLongZeroTail: a power loss can leave zeros where the
// writes since the last fsync were (up to sync_every records, megabytes).
// Open cut a zero tail only when it was shorter than MaxLineBytes: past
// that it found "no line break in its last 1048576 bytes" and refused the
// log as "not an audit log", and the host did not start. Zeros at the end
// are a crash's, however many.
func TestRepairCutsLongZeroTail(t *testing.T) {
	path, lines := writeLog(t, 3)
	for _, zeros := range []int{3 << 20, 100} {
		content := append(join(lines), make([]byte, zeros)...)
		if zeros == 100 { // a record's beginning, then zeros
			content = append(append(join(lines), lines[0][:20]...), make([]byte, 2<<20)...)
		}
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		w, err := Open(path, Options{RepairTail: true})
		if err != nil {
			t.Fatalf("Open of a log with %d zeros at its end: %v", zeros, err)
		}
		w.Log(entry(4))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if n, err := Verify(bytes.NewReader(data)); err != nil || n != 4 {
			t.Fatalf("after repair: Verify = %d, %v; want 4", n, err)
		}
	}
	// Without RepairTail it is refused, and left as it was.
	content := append(join(lines), make([]byte, 3<<20)...)
	os.WriteFile(path, content, 0o600)
	if w, err := Open(path, Options{}); err == nil {
		w.Close()
		t.Fatal("Open without RepairTail took a log with a zero tail")
	}
	if st, _ := os.Stat(path); st.Size() != int64(len(content)) {
		t.Fatalf("the refused file changed: %d bytes", st.Size())
	}
}

// TestVerifySaysZerosArePowerLoss: verify called the zeros a power
// loss leaves "line longer than 1048576 bytes" (more than 1 MiB of them)
// or "invalid character '\x00'" (zeros and then records): the operator
// learnt nothing of what happened. It says zero bytes now.
func TestVerifySaysZerosArePowerLoss(t *testing.T) {
	_, lines := writeLog(t, 3)
	for _, content := range [][]byte{
		append(join(lines[:2]), make([]byte, 2<<20)...),
		append(join(lines[:2]), make([]byte, 100)...),
		append(append(join(lines[:2]), make([]byte, 100)...), lines[2]...),
	} {
		_, err := Verify(bytes.NewReader(content))
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Line != 3 || !strings.Contains(ve.Reason, "zero bytes") {
			t.Errorf("Verify of a log with zeros at line 3: %v", err)
		}
	}
}

// TestVerifySaysWholeRecordLacksNewline: a last record whose only
// missing byte is its newline was reported as "incomplete last record",
// though the host keeps it at its next start
// (TestRepairKeepsWholeRecordWithoutNewline): the operator was told a
// record was cut. Verify says it is whole now, and still fails (the file
// is not as the host leaves it).
func TestVerifySaysWholeRecordLacksNewline(t *testing.T) {
	_, lines := writeLog(t, 3)
	content := join(lines)
	_, err := Verify(bytes.NewReader(content[:len(content)-1]))
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Line != 3 || !strings.Contains(ve.Reason, "the record is whole") {
		t.Fatalf("Verify of a log whose last newline is missing: %v", err)
	}
	_, err = Verify(bytes.NewReader(content[:len(content)-5]))
	if !errors.As(err, &ve) || ve.Line != 3 || !strings.Contains(ve.Reason, "incomplete last record") {
		t.Fatalf("Verify of a log whose last record is cut: %v", err)
	}
}
