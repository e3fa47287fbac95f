package discovery

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
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
