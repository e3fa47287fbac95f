package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLogFolderRemovedHoldsRecords: the log's folder removed under a
// running writer (rm -rf of the state directory, a clean-up script). The
// records that can no longer go anywhere are held and calls are refused
// (Failing, naming the path), as for a full disk; when the folder is back,
// the held records go to a new file at the path, chained on, and the log
// works again. Before, the failed reopen stopped the log for good: the
// records of calls that had already run were dropped (in no file at all)
// and every later call was refused until the host restarted.
func TestLogFolderRemovedHoldsRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Log(entry(1))
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	w.Log(entry(2)) // into the unlinked file; its fsync notices the file is gone, and it is kept
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	w.Log(entry(3)) // a call that ran: its record has nowhere to go
	_ = w.Flush()
	deadline := time.Now().Add(10 * time.Second)
	for w.Failing() == nil {
		if time.Now().After(deadline) {
			t.Fatal("Failing stayed nil with the log's folder gone")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := w.Failing(); !strings.Contains(err.Error(), path) {
		t.Errorf("Failing = %v, want it to name %s", err, path)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for w.Failing() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("Failing stayed set after the folder came back: %v", w.Failing())
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.Log(entry(4))
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no new log at the path: %v", err)
	}
	var first struct{ Prev string }
	if err := json.Unmarshal(b[:strings.IndexByte(string(b), '\n')], &first); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Record 2 went to the unlinked file after its folder was removed: it
	// is written again to the new file (TestLogDeletedContinues).
	n, _, err := VerifyWith(f, VerifyOptions{After: Anchor{Seq: 1, Hash: first.Prev}})
	if err != nil || n != 3 {
		t.Fatalf("new file: %d records, %v; want records 2 to 4 chained after record 1\n%s", n, err, b)
	}
}

// TestOpenRefusesNonRegularFile: an audit path that names a device
// (a link to /dev/null) or a FIFO is refused at Open, naming the path and
// what is there. Before, a link to /dev/null was opened: the first records
// went nowhere, and only the first fsync failed ("invalid argument"),
// after the host had started serving; a FIFO failed with "illegal seek".
func TestOpenRefusesNonRegularFile(t *testing.T) {
	dir := t.TempDir()
	devnull := filepath.Join(dir, "null.jsonl")
	if err := os.Symlink(os.DevNull, devnull); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	testutil.Mkfifo(t, fifo)
	for _, p := range []string{devnull, fifo} {
		w, err := Open(p, Options{})
		if err == nil {
			w.Close()
			t.Errorf("Open(%s) succeeded; want it refused", p)
			continue
		}
		if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Open(%s) = %v; want an error naming it and saying it is not a regular file", p, err)
		}
	}
}

// TestRotationAfterFolderRemoved: the log's folder removed just
// before a rotation (the file reached max_bytes before an fsync noticed it
// gone): the writer does not rename whatever is at the path; it holds the
// records and continues in a new file once the folder is back, as when it
// notices the move itself. Before, the failed rename stopped the log for
// good: calls were refused until the host restarted.
func TestRotationAfterFolderRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "audit.jsonl")
	w, err := Open(path, Options{MaxBytes: 2000, SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Log(entry(1))
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 6; i++ { // past max_bytes in one group, no fsync between
		w.Log(entry(i))
	}
	_ = w.Flush()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w.Log(entry(7))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := w.Sync(); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the log still fails with its folder back: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Records 2 to 6 went to the unlinked file: they are written again to
	// the new one, with record 7 (which then rotates: the files in the
	// folder hold records 2 to 7, each once).
	files, err := filepath.Glob(filepath.Join(dir, "audit*"))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for i := 2; i <= 7; i++ {
		if n := strings.Count(all.String(), fmt.Sprintf(`"seq":%d,`, i)); n != 1 {
			t.Fatalf("record %d is %d times in %v, want once:\n%s", i, n, files, all.String())
		}
	}
}
