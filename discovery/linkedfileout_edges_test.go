package discovery

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLinkedFileOutsideReloads: a plugin file that is a symlink to a file
// outside the plugin folders (plugins/tool.fake -> ~/dev/tool/dist/tool.fake,
// a tool under development linked into place) is loaded again when that
// file is saved — in place, by an editor's rename, or with its build
// folder removed and made again — and goes when it is deleted. Before, no
// watch saw the target's folder: the edits were loaded only at a refresh
// or a restart, and the deleted file's code kept serving.
func TestLinkedFileOutsideReloads(t *testing.T) {
	var dist string
	spec := func(i int) fakeSpec {
		return fakeSpec{ID: "org.test.out", Version: "1.0.0", Tools: []string{fmt.Sprint("out", i)}}
	}
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		dist = filepath.Join(filepath.Dir(dir), "dev", "dist")
		writeFake(t, filepath.Join(dist, "tool.fake"), spec(0))
		if err := os.Symlink(filepath.Join(dist, "tool.fake"), filepath.Join(dir, "tool.fake")); err != nil {
			t.Fatal(err)
		}
	})
	target := filepath.Join(dist, "tool.fake")
	served := func(i int) {
		t.Helper()
		want := []string{fmt.Sprint("out", i)}
		testutil.Eventually(t, fmt.Sprintf("version %d served", i), func() bool {
			return slices.Equal(toolNames(env, "org.test.out"), want)
		})
	}
	served(0)
	w0 := inotifyWatches()

	writeFake(t, target, spec(1)) // an editor's save: a new file renamed over it
	served(1)

	b := []byte(fmt.Sprintf(`{"id":"org.test.out","version":"1.0.0","tools":["out2"]}`))
	if err := os.WriteFile(target, b, 0o644); err != nil { // in place
		t.Fatal(err)
	}
	served(2)

	// A build that removes its output folder and makes it again.
	if err := os.RemoveAll(dist); err != nil {
		t.Fatal(err)
	}
	writeFake(t, target, spec(3))
	served(3)
	writeFake(t, target, spec(4)) // and the new folder's edits are seen too
	served(4)

	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the deleted file's provider unloaded", func() bool {
		return len(toolNames(env, "org.test.out")) == 0
	})
	// The link removed, the folder outside is no longer watched.
	if err := os.Remove(filepath.Join(env.dir, "tool.fake")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the outside folder's watch removed", func() bool { return inotifyWatches() < w0 })
}

// TestLinkedFileOutsideInFolderReloads: as TestLinkedFileOutsideReloads,
// for a link at the top of a provider folder (plugins/pkg/tool.fake ->
// ~/dev/tool/dist/tool.fake, beside the card or files of the package):
// its target's edits reload the folder's provider, and removing the link
// ends the outside folder's watch.
func TestLinkedFileOutsideInFolderReloads(t *testing.T) {
	var dist string
	spec := func(i int) fakeSpec {
		return fakeSpec{ID: "org.test.outpkg", Version: "1.0.0", Tools: []string{fmt.Sprint("op", i)}}
	}
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		dist = filepath.Join(filepath.Dir(dir), "dev", "dist")
		writeFake(t, filepath.Join(dist, "tool.fake"), spec(0))
		writeFile(t, filepath.Join(dir, "pkg", "README.md"), "a package")
		if err := os.Symlink(filepath.Join(dist, "tool.fake"), filepath.Join(dir, "pkg", "tool.fake")); err != nil {
			t.Fatal(err)
		}
	})
	target := filepath.Join(dist, "tool.fake")
	served := func(i int) {
		t.Helper()
		want := []string{fmt.Sprint("op", i)}
		testutil.Eventually(t, fmt.Sprintf("version %d served", i), func() bool {
			return slices.Equal(toolNames(env, "org.test.outpkg"), want)
		})
	}
	served(0)
	w0 := inotifyWatches()
	writeFake(t, target, spec(1))
	served(1)
	if err := os.RemoveAll(dist); err != nil {
		t.Fatal(err)
	}
	writeFake(t, target, spec(2))
	served(2)
	writeFake(t, target, spec(3))
	served(3)
	if err := os.Remove(filepath.Join(env.dir, "pkg", "tool.fake")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the package's provider unloaded", func() bool {
		return len(toolNames(env, "org.test.outpkg")) == 0
	})
	testutil.Eventually(t, "the outside folder's watch removed", func() bool { return inotifyWatches() < w0 })
}

// TestDanglingLinkInFolderLoadsWhenTargetComes: a provider folder whose
// artifact is a link to a file not there yet (made before the build that
// writes it, in a folder that does not exist yet either) is loaded once
// the file is there: no watch can see it come, so the link is looked at
// with the plugin folders.
func TestDanglingLinkInFolderLoadsWhenTargetComes(t *testing.T) {
	var target string
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		target = filepath.Join(filepath.Dir(dir), "dev", "later", "tool.fake")
		if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, "pkg", "tool.fake")); err != nil {
			t.Fatal(err)
		}
	})
	if got := toolNames(env, "org.test.later"); len(got) != 0 {
		t.Fatalf("served %v before its file came", got)
	}
	writeFake(t, target, fakeSpec{ID: "org.test.later", Version: "1.0.0", Tools: []string{"later"}})
	testutil.Eventually(t, "the package served once its file came", func() bool {
		return slices.Equal(toolNames(env, "org.test.later"), []string{"later"})
	})
}
