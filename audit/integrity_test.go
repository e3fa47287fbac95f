package audit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A client chooses the tool name of a NotFound call and the parent_id of
// tools/call (up to the 8 MiB request limit): a record carrying such a
// field was longer than MaxLineBytes, so `audit verify` failed on it and
// could check nothing after it, and a restart could not name its file.
func TestHugeFieldsStayVerifiable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("\x01", 2<<20) // escaped six-fold
	e := entry(1)
	e.Tool, e.ParentID, e.CallID = huge, "client:"+huge, huge
	e.Outcome, e.Error = "NotFound", huge
	w.Log(e)
	w.Log(entry(2))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := Verify(bytes.NewReader(data)); err != nil || n != 2 {
		t.Fatalf("Verify = %d, %v; want 2 records", n, err)
	}
	// A restart continues the chain and names the file's first record.
	w, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.fileFirst != 1 || w.seq != 2 {
		t.Fatalf("after reopen fileFirst=%d seq=%d, want 1 and 2", w.fileFirst, w.seq)
	}
}

// `audit verify` of the log of a running host read, now and then, a write
// still in progress: the kernel lets a reader see part of a 64 KiB
// write(2) (3 of 127 reads at EOF under a steady load), and verify said
// "FAIL … incomplete last record … a crash during a write" about a healthy
// log. An incomplete last line that changes while verify looks at it is a
// write in progress, not a crash: the records before it are the log.
func TestVerifyLiveTailIsNotACrash(t *testing.T) {
	path, lines := writeLog(t, 3)
	next := append(bytes.TrimSuffix(lines[2], []byte("\n")), '\n') // any bytes: only their arrival matters
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(next[:40]); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(20 * time.Millisecond)
		f.Write(next[40:])
	}()
	n, last, failed, err := VerifyFiles([]string{path}, VerifyOptions{})
	<-done
	if err != nil || n != 3 || last.Seq != 3 {
		t.Fatalf("VerifyFiles of a log being written = %d, %v, %q, %v; want 3 records", n, last, failed, err)
	}

	// A tail that stays incomplete is what a crash leaves: still a failure.
	path, lines = writeLog(t, 3)
	if err := os.WriteFile(path, append(join(lines), lines[0][:40]...), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = VerifyFiles([]string{path}, VerifyOptions{})
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Line != 4 || !strings.Contains(ve.Reason, "incomplete last record") {
		t.Fatalf("VerifyFiles of a cut log = %v, want line 4: incomplete last record", err)
	}
}

// The canonical encoding of params and results goes into a buffer the
// writer keeps for the next value; one 16 MiB result (max_result_bytes)
// kept 16 MiB per hashing goroutine for the life of the host.
func TestHugeValueBufferNotKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := entry(1)
	e.Result = map[string]any{"blob": strings.Repeat("x", 16<<20)}
	w.Log(e)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if c := cap(w.vh.scratch); c > 1<<20 {
		t.Fatalf("the writer keeps a %d-byte encoding buffer after a huge result", c)
	}
}

// A record swapped in from another log (same seq, its own valid hash)
// breaks the chain at its own line; the reason blamed only the line
// before it ("line 3 was edited or replaced"), where there is nothing to
// find.
func TestSwappedRecordNamed(t *testing.T) {
	_, lines := writeLog(t, 6)
	path := filepath.Join(t.TempDir(), "other.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 6; i++ {
		e := entry(i)
		e.Caller = "someone else"
		w.Log(e)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	other := readLines(t, path)
	swapped := append([][]byte(nil), lines...)
	swapped[3] = other[3]
	_, err = Verify(bytes.NewReader(join(swapped)))
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Line != 4 || !strings.Contains(ve.Reason, "this record was replaced") {
		t.Fatalf("Verify of a log with line 4 from another log = %v; want line 4 saying this record may have been replaced", err)
	}
}

// RepairTail (the host's default) cut whatever followed the last newline
// before it looked at the rest: a file that is not an audit log (audit.path
// or --data naming the wrong file) lost its last line, or, with no newline
// at all, everything, and was then used as the log; and a log whose last
// complete record was damaged lost its tail (evidence) before Open refused
// it. A crash's tail is the beginning of a record (or the zeros a power
// loss can leave); anything else is refused, and nothing is cut before the
// record it would continue from checks.
func TestRepairTailCutsOnlyACrashTail(t *testing.T) {
	dir := t.TempDir()
	_, lines := writeLog(t, 3)
	damaged := append([][]byte(nil), lines...)
	damaged[2] = bytes.Replace(lines[2], []byte(`"tool":"t3"`), []byte(`"tool":"t9"`), 1)
	for _, c := range []struct {
		name    string
		content []byte
	}{
		{"text without final newline", []byte("my notes\nthe last line")},
		{"no newline at all", bytes.Repeat([]byte("x"), 3<<20)},
		{"json without newline", []byte(`{"name":"not a log"}`)},
		{"damaged record then a crash tail", append(join(damaged), lines[0][:30]...)},
		{"log then foreign text", append(join(lines), "appended by hand"...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".jsonl")
			if err := os.WriteFile(path, c.content, 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := Open(path, Options{RepairTail: true})
			if err == nil {
				w.Close()
				t.Errorf("Open took it as a log")
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, c.content) {
				t.Errorf("Open changed the file: %d bytes left of %d", len(got), len(c.content))
			}
		})
	}
	// A power loss can leave zeros where the last write was.
	path := filepath.Join(dir, "zeros.jsonl")
	if err := os.WriteFile(path, append(join(lines), make([]byte, 4096)...), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, Options{RepairTail: true})
	if err != nil {
		t.Fatalf("Open of a log with a zero-filled tail: %v", err)
	}
	w.Log(entry(4))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n, err := Verify(bytes.NewReader(data)); err != nil || n != 4 {
		t.Fatalf("Verify after repairing a zero-filled tail = %d, %v; want 4", n, err)
	}
}

// A real write error names the file already (*os.PathError): the refusal
// every client got read "audit: write P: write P: no space left on
// device".
func TestWriteErrorNamesFileOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var full atomic.Bool
	full.Store(true)
	w, err := Open(path, Options{WriteFault: func(f *os.File, b []byte) (int, error) {
		if full.Load() {
			return 0, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
		}
		return f.Write(b)
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(1))
	deadline := time.Now().Add(10 * time.Second)
	for w.Failing() == nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	err = w.Failing()
	full.Store(false)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err == nil || strings.Count(err.Error(), path) != 1 || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Failing = %v; want ENOSPC naming %s once", err, path)
	}
}

// A log written before record strings were bounded can end with a record
// longer than MaxLineBytes; Open still continues it (only the incomplete
// tail it would cut is bounded).
func TestOpenContinuesAfterLongOldRecord(t *testing.T) {
	path, lines := writeLog(t, 2)
	r, reason := checkLine(bytes.TrimSuffix(lines[1], []byte("\n")))
	if reason != "" {
		t.Fatal(reason)
	}
	prev := r.Hash
	old := record{CallID: "c3", Caller: "cli", Outcome: "NotFound", Prev: prev, Seq: 3, Time: r.Time, Tool: strings.Repeat("n", 2<<20)}
	old.Hash, _ = hashRecord(&old, nil)
	data := append(join(lines), append(appendRecord(nil, &old, true), '\n')...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, Options{RepairTail: true})
	if err != nil {
		t.Fatalf("Open of a log ending in a 2 MiB record: %v", err)
	}
	w.Log(entry(4))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readLines(t, path)
	last, reason := checkLine(bytes.TrimSuffix(got[len(got)-1], []byte("\n")))
	if reason != "" || last.Seq != 4 || last.Prev != old.Hash {
		t.Fatalf("record after the old one: seq %d prev %s (%s); want 4 chained to %s", last.Seq, last.Prev, reason, old.Hash)
	}
}
