package discovery

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// teeFile is an io.Writer that appends every write to a file as well as to
// a buffer, as `aios-host run > plugins/mytool/host.log 2>&1` does.
type teeFile struct {
	buf  *testutil.SyncBuffer
	path string
}

func (w teeFile) Write(p []byte) (int, error) {
	f, err := os.OpenFile(w.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, _ = f.Write(p)
		_ = f.Close()
	}
	return w.buf.Write(p)
}

// TestWrittenFileNotSaidAgain: the host's log sent to a file in a
// provider folder (a developer running `aios-host run --plugins .. >
// host.log` in the folder of the tool they work on; a tool's own log or
// data file beside it is the same) fed itself for good: each line written
// was an event in the folder, which forgot what had been said of host.log
// ("file in a provider folder not loaded") and had the folder scanned
// again, which said it again, another line: 20 lines a second until the
// disk filled. A file written (its content, not its name or kind, changed)
// is not said again: what is said of it depends on its name and kind; a
// file renamed or made under a name is.
func TestWrittenFileNotSaidAgain(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	var logPath string
	env := newEnvWith(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "p", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"p"}})
		logPath = filepath.Join(dir, "p", "host.log")
		writeFile(t, logPath, "")
	}, func(o *Options) {
		var w io.Writer = teeFile{buf: logs, path: logPath}
		o.Logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	said := func(name string) int {
		return logLines(logs, "file in a provider folder not loaded", "file="+filepath.Join(env.dir, "p", name))
	}
	if n := said("host.log"); n != 1 {
		t.Fatalf("host.log said %d times at start, want once:\n%s", n, logs.String())
	}
	// Each line logged is a write to host.log; a write of our own starts
	// it should nothing else have.
	writeFile(t, logPath, "a line\n")
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if n := said("host.log"); n > 1 {
			t.Fatalf("host.log said %d times after it was written to, want once (each line it is said in is a write to it):\n%s", n, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A file made under a name (a log rotated: renamed away) is said.
	if err := os.Rename(logPath, filepath.Join(env.dir, "p", "host.log.1")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "host.log.1 said once renamed into place", func() bool { return said("host.log.1") == 1 })
	if _, err := env.call("p", 1); err != nil {
		t.Fatal(err)
	}
}

// TestSameLoadErrorSaidOnce: a provider folder whose load fails (a
// syntax error being worked on) holding the host's log (`run >
// plugins/mytool/host.log`) fed itself for good: each line was a write in
// the folder, which loaded the unit again, which failed alike and said so
// at Error, another line. The same error of a unit is said once at
// Error, then at Debug, as a remote's that is down; another error, or the
// unit loading, is said.
func TestSameLoadErrorSaidOnce(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	var logPath string
	env := newEnvWith(t, "", func(dir string) {
		writeFile(t, filepath.Join(dir, "p", "tool.fake"), `{"id": "org.test.p", `)
		logPath = filepath.Join(dir, "p", "host.log")
		writeFile(t, logPath, "")
	}, func(o *Options) {
		var w io.Writer = teeFile{buf: logs, path: logPath}
		o.Logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	unit := "file=" + filepath.Join(env.dir, "p") + " "
	failed := func() int { return logLines(logs, "level=ERROR", "provider not loaded", unit) }
	if n := failed(); n != 1 {
		t.Fatalf("p's failure said %d times at start, want once:\n%s", n, logs.String())
	}
	writeFile(t, logPath, "a line\n")
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if n := failed(); n > 1 {
			t.Fatalf("p's failure said %d times after host.log was written to, want once (each line it is said in is a write beside it):\n%s", n, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Another error is said.
	writeFile(t, filepath.Join(env.dir, "p", "tool.fake"), `{"id": 7}`)
	testutil.Eventually(t, "the new error said", func() bool { return failed() == 2 })
	if e := env.d.Errors()[filepath.Join(env.dir, "p")]; !strings.Contains(e, "tool.fake") {
		t.Fatalf("p's error %q does not name its file", e)
	}
	writeFake(t, filepath.Join(env.dir, "p", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"p"}})
	testutil.Eventually(t, "p loaded once mended", func() bool { _, err := env.call("p", 1); return err == nil })
}
