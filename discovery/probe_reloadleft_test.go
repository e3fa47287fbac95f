package discovery

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/fsnotify/fsnotify"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestProbeWatchFailureLogged: a watch that could not be added (the
// kernel's fs.inotify.max_user_watches reached: ENOSPC from
// inotify_add_watch; a subfolder the host may not read) was dropped
// silently in the provider folders' subfolders (watchTree, aios/) and at
// a root's reappearance, so edits there were never seen and nothing said
// why. Now each failed folder is said at Warn once, naming it, and the
// watch limit once in all, naming the sysctl to raise.
func TestProbeWatchFailureLogged(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	var fail atomic.Pointer[func(path string) error]
	env := newEnvWith(t, "", func(dir string) {
		for _, p := range []string{"a", "b", "c"} {
			writeFake(t, filepath.Join(dir, p, "lib", "tool.fake"), fakeSpec{ID: "org.test." + p, Version: "1.0.0", Tools: []string{p + "-one"}})
			writeFile(t, filepath.Join(dir, p, "adapter.json"), `{
  "adapter": {"id": "org.test.`+p+`", "name": "P", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "lib/tool.fake"}}`)
		}
	}, func(o *Options) {
		withLogs(logs)(o)
		o.addWatch = func(w *fsnotify.Watcher, path string) error {
			if f := fail.Load(); f != nil {
				if err := (*f)(path); err != nil {
					return err
				}
			}
			return w.Add(path)
		}
	})
	failing := func(path string) error {
		switch {
		case strings.HasSuffix(path, filepath.Join("c", "lib")):
			return syscall.EACCES
		case filepath.Base(path) == "lib":
			return syscall.ENOSPC
		}
		return nil
	}
	fail.Store(&failing)
	for range 2 {
		// A subfolder made while the host runs is watched as it comes;
		// here its watch fails.
		for _, p := range []string{"a", "b", "c"} {
			_ = os.RemoveAll(filepath.Join(env.dir, p, "lib"))
			writeFake(t, filepath.Join(env.dir, p, "lib", "tool.fake"), fakeSpec{ID: "org.test." + p, Version: "1.0.0", Tools: []string{p + "-two"}})
		}
		testutil.Eventually(t, "both failures said", func() bool {
			return logLines(logs, "level=WARN", "max_user_watches") >= 1 && logLines(logs, "level=WARN", "cannot watch folder", filepath.Join("c", "lib")) >= 1
		})
		if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
			t.Fatal(err)
		}
	}
	if n := logLines(logs, "level=WARN", "max_user_watches", "sysctl fs.inotify.max_user_watches="); n != 1 {
		t.Errorf("the watch limit said %d times at Warn, want once with the sysctl:\n%s", n, logs.String())
	}
	if n := logLines(logs, "level=WARN", "cannot watch folder", "dir="+filepath.Join(env.dir, "c", "lib"), "permission denied"); n != 1 {
		t.Errorf("c/lib's failed watch said %d times at Warn, want once naming it:\n%s", n, logs.String())
	}
}
