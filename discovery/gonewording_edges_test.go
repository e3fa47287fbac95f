package discovery

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestDeletedBesideLoadsNotCalledRename: a file deleted while other files
// load (a git checkout deleting one plugin and changing others) is kept
// serving a moment in case one of them is it renamed; the log said of it
// "(a rename in place)", which a plain deletion is not. It says what is
// waited for now, and the unload that follows.
func TestDeletedBesideLoadsNotCalledRename(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "gone.fake"), fakeSpec{ID: "org.test.gone", Version: "1.0.0", Tools: []string{"gone"}})
		writeFake(t, filepath.Join(dir, "slow.fake"), fakeSpec{ID: "org.test.slow", Version: "1.0.0", Tools: []string{"s1"}})
	}, withLogs(logs))
	writeFake(t, filepath.Join(env.dir, "slow.fake"), fakeSpec{ID: "org.test.slow", Version: "1.0.0", Tools: []string{"s2"}, LoadMS: 1500})
	if err := os.Remove(filepath.Join(env.dir, "gone.fake")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "gone.fake unloaded", func() bool { return env.h.Registry().Provider("org.test.gone") == nil })
	file := "file=" + filepath.Join(env.dir, "gone.fake")
	if n := logLines(logs, "a rename in place", file); n != 0 {
		t.Errorf("a deleted file said to be a rename in place:\n%s", logs.String())
	}
	if n := logLines(logs, "in case one of them is it renamed", file); n != 1 {
		t.Errorf("the wait for the other loads said %d times, want once:\n%s", n, logs.String())
	}
}
