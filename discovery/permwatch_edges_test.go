package discovery

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/fsnotify/fsnotify"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestUnreadableFolderWatchedOnceReadable: a subfolder of a provider
// folder the host could not watch when it came (made mode 000, or
// copied in before its mode was set: inotify_add_watch says EACCES) was
// never watched afterwards, though the chmod that made it readable is an
// event the host sees (it even reloaded the unit for it): every later
// edit in it (lib/tool.fake a card names, lib/util.js an artifact
// imports) went unseen until aios/registry.refresh or a restart. Now a
// folder whose watch failed is watched again when its mode changes.
func TestUnreadableFolderWatchedOnceReadable(t *testing.T) {
	var denied atomic.Bool
	env := newEnvWith(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "p", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"p-one"}})
	}, func(o *Options) {
		o.addWatch = func(w *fsnotify.Watcher, path string) error {
			if denied.Load() && strings.HasSuffix(path, filepath.Join("p", "lib")) {
				return syscall.EACCES // as inotify_add_watch of a folder of mode 000
			}
			return w.Add(path)
		}
	})
	denied.Store(true)
	lib := filepath.Join(env.dir, "p", "lib")
	writeFile(t, filepath.Join(lib, "util.js"), "export const word = 'one';\n")
	testutil.Eventually(t, "p reloaded with lib/util.js", func() bool {
		return len(env.d.Errors()) == 0 && env.load.loads.Load() >= 2
	})
	// The folder is made readable: chmod, an attribute change of lib
	// seen by p's watch.
	denied.Store(false)
	if err := os.Chmod(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "lib watched once readable", func() bool {
		return slices.Contains(env.d.watcher.WatchList(), lib)
	})
	before := env.load.loads.Load()
	writeFile(t, filepath.Join(lib, "util.js"), "export const word = 'two';\n")
	testutil.Eventually(t, "p reloaded after lib/util.js changed", func() bool { return env.load.loads.Load() > before })
}
