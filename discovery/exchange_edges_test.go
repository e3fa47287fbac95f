//go:build linux

package discovery

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
	"golang.org/x/sys/unix"
)

// TestExchangedFolderWatched: a provider folder replaced atomically by
// swapping a staged copy with it (mv --exchange .pkg.new pkg, renameat2's
// RENAME_EXCHANGE: the one way to replace a folder in one step). The
// watch reports the new folder's Create before the old one's Rename of
// the same name, and that Rename ended the watches just added for the new
// folder: the swap itself was loaded, but no edit of the new pkg, at its
// top or deeper, ever was. A Remove or Rename of a name that a folder
// holds again is watched afresh now.
func TestExchangedFolderWatched(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "pkg", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"p0"}})
		writeFile(t, filepath.Join(dir, "pkg", "lib", "x.js"), "x")
	})
	pkg, stage := filepath.Join(env.dir, "pkg"), filepath.Join(env.dir, ".pkg.new")
	w0 := inotifyWatches()
	for i := 1; i <= 3; i++ {
		if err := os.RemoveAll(stage); err != nil {
			t.Fatal(err)
		}
		writeFake(t, filepath.Join(stage, "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{fmt.Sprint("p", i)}})
		writeFile(t, filepath.Join(stage, "lib", "x.js"), "x")
		if err := unix.Renameat2(unix.AT_FDCWD, stage, unix.AT_FDCWD, pkg, unix.RENAME_EXCHANGE); err != nil {
			t.Skipf("renameat2 RENAME_EXCHANGE: %v", err)
		}
		swapped := fmt.Sprint("p", i)
		testutil.Eventually(t, "the swapped-in pkg served", func() bool { return slices.Equal(toolNames(env, "org.test.p"), []string{swapped}) })
		edited := swapped + "-edited"
		writeFake(t, filepath.Join(pkg, "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{edited}})
		testutil.Eventually(t, "an edit of the swapped-in pkg loaded", func() bool {
			return slices.Equal(toolNames(env, "org.test.p"), []string{edited})
		})
		before := env.load.loads.Load()
		writeFile(t, filepath.Join(pkg, "lib", "x.js"), fmt.Sprint("y", i))
		testutil.Eventually(t, "an edit of the swapped-in pkg/lib/x.js loaded", func() bool { return env.load.loads.Load() > before })
	}
	if err := os.RemoveAll(stage); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the old copies' watches gone", func() bool { return inotifyWatches() <= w0 })
}
