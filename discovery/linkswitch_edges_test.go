package discovery

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// switchLink points the symlink at link to target the way deploy tools
// do: a new link beside it renamed over it (ln -s target .tmp && mv -T).
func switchLink(t *testing.T, target, link string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(link), "."+filepath.Base(link)+".tmp")
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
}

// TestSwitchedLinkWatchesFreed: a blue/green deploy switches
// plugins/current from one release folder to the next by renaming a new
// symlink over it. The watch of the new release was added under the same
// name, which moved fsnotify's entry to it and left the kernel's watch of
// the old release and of each of its subfolders behind: 4 more inotify
// watches per deploy here, for as long as old releases are kept (every
// one, in a Nix store), out of the user's fs.inotify.max_user_watches.
// The old folder's watches under the name are removed now; the new
// release's edits, at its top and deeper, are loaded, the old ones' not.
func TestSwitchedLinkWatchesFreed(t *testing.T) {
	var releases string
	release := func(i int) string {
		p := filepath.Join(releases, fmt.Sprintf("v%d", i))
		writeFake(t, filepath.Join(p, "tool.fake"), fakeSpec{ID: "org.test.bg", Version: fmt.Sprintf("1.0.%d", i), Tools: []string{fmt.Sprintf("bg%d", i)}})
		writeFile(t, filepath.Join(p, "lib", "a", "x.js"), "x")
		writeFile(t, filepath.Join(p, "lib", "b", "x.js"), "x")
		return p
	}
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		releases = filepath.Join(filepath.Dir(dir), "releases")
		if err := os.Symlink(release(0), filepath.Join(dir, "current")); err != nil {
			t.Fatal(err)
		}
	})
	current := filepath.Join(env.dir, "current")
	if got := toolNames(env, "org.test.bg"); !slices.Equal(got, []string{"bg0"}) {
		t.Fatalf("serves %v; errors %v", got, env.d.Errors())
	}
	w0 := inotifyWatches()
	const deploys = 20
	for i := 1; i <= deploys; i++ {
		switchLink(t, release(i), current)
		want := []string{fmt.Sprintf("bg%d", i)}
		testutil.Eventually(t, fmt.Sprintf("release %d served", i), func() bool { return slices.Equal(toolNames(env, "org.test.bg"), want) })
	}
	if w1 := inotifyWatches(); w1 > w0+1 {
		t.Errorf("after %d deploys the host holds %d inotify watches, %d before (the old releases' are kept)", deploys, w1, w0)
	}
	// The current release is watched, at any depth.
	writeFake(t, filepath.Join(releases, fmt.Sprint("v", deploys), "tool.fake"), fakeSpec{ID: "org.test.bg", Version: "1.1.0", Tools: []string{"edited"}})
	testutil.Eventually(t, "the edit of the current release loaded", func() bool {
		return slices.Equal(toolNames(env, "org.test.bg"), []string{"edited"})
	})
	before := env.load.loads.Load()
	writeFile(t, filepath.Join(releases, fmt.Sprint("v", deploys), "lib", "b", "x.js"), "y")
	testutil.Eventually(t, "current/lib/b/x.js's edit reloads", func() bool { return env.load.loads.Load() > before })
	// Back to an old release (a rollback): watched again.
	switchLink(t, filepath.Join(releases, "v3"), current)
	testutil.Eventually(t, "rolled back to release 3", func() bool { return slices.Equal(toolNames(env, "org.test.bg"), []string{"bg3"}) })
	writeFake(t, filepath.Join(releases, "v3", "tool.fake"), fakeSpec{ID: "org.test.bg", Version: "1.0.3", Tools: []string{"bg3", "hotfix"}})
	testutil.Eventually(t, "the edit of release 3 loaded", func() bool {
		return slices.Equal(toolNames(env, "org.test.bg"), []string{"bg3", "hotfix"})
	})
}

// TestSwitchedRootWatchesFreed: the plugin folder itself reached through
// a symlink that a deploy switches (plugins: [/srv/app/current/plugins]).
// The root check saw the new folder and watched it and its provider
// folders, but the watches of the old folder's provider folders that the
// new release lacks were kept, on the old release, at each deploy. Now
// the old folder's watches all go when another folder takes the root's
// name, and the new release's folders are watched and loaded.
func TestSwitchedRootWatchesFreed(t *testing.T) {
	old := rootCheckInterval
	rootCheckInterval = 50 * time.Millisecond
	defer func() { rootCheckInterval = old }()
	base := t.TempDir()
	releases, current := filepath.Join(base, "releases"), filepath.Join(base, "current")
	release := func(i int) string {
		p := filepath.Join(releases, fmt.Sprint(i), "plugins")
		writeFake(t, filepath.Join(p, "main", "tool.fake"), fakeSpec{ID: "org.test.main", Version: fmt.Sprintf("1.0.%d", i), Tools: []string{fmt.Sprint("main", i)}})
		// A provider folder of this release only, with a subfolder.
		writeFake(t, filepath.Join(p, fmt.Sprint("only", i), "tool.fake"), fakeSpec{ID: fmt.Sprint("org.test.only", i), Version: "1.0.0", Tools: []string{fmt.Sprint("only", i)}})
		writeFile(t, filepath.Join(p, fmt.Sprint("only", i), "lib", "x.js"), "x")
		return filepath.Join(releases, fmt.Sprint(i))
	}
	if err := os.Symlink(release(0), current); err != nil {
		t.Fatal(err)
	}
	env := newEnvRoots(t, []string{filepath.Join(current, "plugins")}, "debounce: 10ms\n")
	if got := toolNames(env, "org.test.only0"); !slices.Equal(got, []string{"only0"}) {
		t.Fatalf("only0 serves %v; errors %v", got, env.d.Errors())
	}
	w0 := inotifyWatches()
	const deploys = 8
	for i := 1; i <= deploys; i++ {
		switchLink(t, release(i), current)
		prev, id := fmt.Sprint("org.test.only", i-1), fmt.Sprint("org.test.only", i)
		testutil.Eventually(t, fmt.Sprintf("release %d served", i), func() bool {
			return slices.Equal(toolNames(env, "org.test.main"), []string{fmt.Sprint("main", i)}) &&
				len(toolNames(env, id)) == 1 && len(toolNames(env, prev)) == 0
		})
	}
	if w1 := inotifyWatches(); w1 > w0+1 {
		t.Errorf("after %d deploys the host holds %d inotify watches, %d before: %v", deploys, w1, w0, env.d.watcher.WatchList())
	}
	before := env.load.loads.Load()
	writeFile(t, filepath.Join(releases, fmt.Sprint(deploys), "plugins", fmt.Sprint("only", deploys), "lib", "x.js"), "y")
	testutil.Eventually(t, "an edit deep in the current release reloads", func() bool { return env.load.loads.Load() > before })
}

// TestLinkedFileChangeReloadsLink: a symlink to a file beside it
// (tool.fake -> real.fake, the libfoo.so -> libfoo.so.1.2 way) loads as a
// copy of that file, but the watch reports changes of real.fake only: the
// link's copy kept the code it had at start, and when real.fake was
// deleted that copy took over and served the first version through a
// link to nothing. A change of the file now reloads the links to it.
func TestLinkedFileChangeReloadsLink(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "real.fake"), fakeSpec{ID: "org.test.l", Version: "1.0.0", Tools: []string{"l-one"}})
		if err := os.Symlink("real.fake", filepath.Join(dir, "tool.fake")); err != nil {
			t.Fatal(err)
		}
	})
	if got := toolNames(env, "org.test.l"); !slices.Equal(got, []string{"l-one"}) {
		t.Fatalf("serves %v; errors %v", got, env.d.Errors())
	}
	writeFake(t, filepath.Join(env.dir, "real.fake"), fakeSpec{ID: "org.test.l", Version: "1.1.0", Tools: []string{"l-two"}})
	testutil.Eventually(t, "real.fake and the link to it loaded again", func() bool {
		open := env.load.open()
		return slices.Equal(toolNames(env, "org.test.l"), []string{"l-two"}) &&
			!slices.Contains(open, "org.test.l@1.0.0") && slices.Equal(open, []string{"org.test.l@1.1.0", "org.test.l@1.1.0"})
	})
	if err := os.Remove(filepath.Join(env.dir, "real.fake")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the provider gone with real.fake", func() bool {
		return len(toolNames(env, "org.test.l")) == 0 && len(env.load.open()) == 0
	})
	// The file back: the link serves it again.
	writeFake(t, filepath.Join(env.dir, "real.fake"), fakeSpec{ID: "org.test.l", Version: "1.2.0", Tools: []string{"l-three"}})
	testutil.Eventually(t, "real.fake back", func() bool { return slices.Equal(toolNames(env, "org.test.l"), []string{"l-three"}) })
	if err := os.Remove(filepath.Join(env.dir, "tool.fake")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the link's copy closed", func() bool {
		return slices.Equal(env.load.open(), []string{"org.test.l@1.2.0"})
	})
}

// TestSwitchedLinkKeepsTargetWatched: plugins/current -> v1, with v1 and
// v2 provider folders in the plugin folder too. fsnotify keys the one
// watch of v1 by the name added first (current); switching current to v2
// added that name again, which took the watch over for v2, and v1's own
// edits were never loaded again. The old folder stays watched under its
// other names, and each folder's edits reload every name it has.
func TestSwitchedLinkKeepsTargetWatched(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "v1", "tool.fake"), fakeSpec{ID: "org.test.v1", Version: "1.0.0", Tools: []string{"v1"}})
		writeFake(t, filepath.Join(dir, "v2", "tool.fake"), fakeSpec{ID: "org.test.v2", Version: "1.0.0", Tools: []string{"v2"}})
		if err := os.Symlink("v1", filepath.Join(dir, "current")); err != nil {
			t.Fatal(err)
		}
	})
	current := filepath.Join(env.dir, "current")
	copies := func(spec string) int {
		n := 0
		for _, s := range env.load.open() {
			if s == spec {
				n++
			}
		}
		return n
	}
	edit := func(folder, id, version string, want map[string]int) {
		t.Helper()
		writeFake(t, filepath.Join(env.dir, folder, "tool.fake"), fakeSpec{ID: id, Version: version, Tools: []string{folder}})
		testutil.Eventually(t, fmt.Sprintf("%s/tool.fake %s loaded under each of its names", folder, version), func() bool {
			for spec, n := range want {
				if copies(spec) != n {
					return false
				}
			}
			return true
		})
	}
	switchLink(t, "v2", current)
	testutil.Eventually(t, "current is v2", func() bool { return copies("org.test.v2@1.0.0") == 2 && copies("org.test.v1@1.0.0") == 1 })
	edit("v1", "org.test.v1", "1.0.1", map[string]int{"org.test.v1@1.0.1": 1, "org.test.v1@1.0.0": 0})
	edit("v2", "org.test.v2", "1.0.1", map[string]int{"org.test.v2@1.0.1": 2, "org.test.v2@1.0.0": 0})
	switchLink(t, "v1", current)
	testutil.Eventually(t, "current is v1 again", func() bool { return copies("org.test.v1@1.0.1") == 2 && copies("org.test.v2@1.0.1") == 1 })
	edit("v2", "org.test.v2", "1.0.2", map[string]int{"org.test.v2@1.0.2": 1, "org.test.v2@1.0.1": 0})
	edit("v1", "org.test.v1", "1.0.2", map[string]int{"org.test.v1@1.0.2": 2, "org.test.v1@1.0.1": 0})
}
