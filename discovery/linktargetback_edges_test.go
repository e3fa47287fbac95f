package discovery

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLinkedFolderTargetBack: a provider folder that is a symlink to a
// folder outside the plugin folders (plugins/app -> /opt/app/release)
// had its provider removed when that folder was removed (a reinstall),
// and not loaded again when the folder came back: no watch sees a folder
// outside the roots come, and the link itself did not change, so the
// tool stayed missing until aios/registry.refresh or a restart. A link
// made before its folder (current -> releases/v3 before v3 is unpacked)
// was never loaded either. Now such links are looked at with the plugin
// folders (every 2 s): the folder is loaded, and watched, once there.
func TestLinkedFolderTargetBack(t *testing.T) {
	out := t.TempDir()
	rel := filepath.Join(out, "release")
	later := filepath.Join(out, "v3")
	writeFake(t, filepath.Join(rel, "tool.fake"), fakeSpec{ID: "org.test.r", Version: "1.0.0", Tools: []string{"r1"}})
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		if err := os.Symlink(rel, filepath.Join(dir, "app")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(later, filepath.Join(dir, "current")); err != nil {
			t.Fatal(err)
		}
	})
	served := func(id string, tools ...string) func() bool {
		return func() bool { return slices.Equal(toolNames(env, id), tools) }
	}
	testutil.Eventually(t, "r1 served", served("org.test.r", "r1"))
	if err := os.RemoveAll(rel); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "org.test.r removed with its folder", served("org.test.r"))
	writeFake(t, filepath.Join(rel, "tool.fake"), fakeSpec{ID: "org.test.r", Version: "1.0.0", Tools: []string{"r2"}})
	testutil.Eventually(t, "the reinstalled folder served", served("org.test.r", "r2"))
	// Watched again: an edit in it is loaded.
	writeFake(t, filepath.Join(rel, "tool.fake"), fakeSpec{ID: "org.test.r", Version: "1.0.0", Tools: []string{"r3"}})
	testutil.Eventually(t, "an edit of the reinstalled folder served", served("org.test.r", "r3"))
	// The link made before its folder.
	writeFake(t, filepath.Join(later, "tool.fake"), fakeSpec{ID: "org.test.v", Version: "3.0.0", Tools: []string{"v3"}})
	testutil.Eventually(t, "the folder made after its link served", served("org.test.v", "v3"))
	testutil.Eventually(t, "no error kept", func() bool { return len(env.d.Errors()) == 0 })
}

// TestNestedLinkedFolderBack: a provider folder's subfolder that is a
// symlink to shared code (p/lib -> /src/shared, a monorepo's) lost its
// watch when that folder was removed and made again (a checkout, a
// reinstall): the kernel ends a watch with its folder and says nothing
// under the link's name, so the new folder's edits never reloaded the
// provider until a refresh or a restart. Now the folder a watched link
// leads to is looked at every 2 s and, when it is another one, watched
// and its unit reloaded.
func TestNestedLinkedFolderBack(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	writeFile(t, filepath.Join(shared, "util.js"), "one\n")
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "p", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"p1"}})
		if err := os.Symlink(shared, filepath.Join(dir, "p", "lib")); err != nil {
			t.Fatal(err)
		}
	})
	before := env.load.loads.Load()
	writeFile(t, filepath.Join(shared, "util.js"), "two\n")
	testutil.Eventually(t, "p reloaded for an edit in lib", func() bool { return env.load.loads.Load() > before })
	before = env.load.loads.Load()
	if err := os.RemoveAll(shared); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "p reloaded without lib", func() bool { return env.load.loads.Load() > before })
	before = env.load.loads.Load()
	writeFile(t, filepath.Join(shared, "util.js"), "three\n")
	testutil.Eventually(t, "p reloaded with lib made again", func() bool { return env.load.loads.Load() > before })
	before = env.load.loads.Load()
	writeFile(t, filepath.Join(shared, "util.js"), "four\n")
	testutil.Eventually(t, "p reloaded for an edit in the new lib", func() bool { return env.load.loads.Load() > before })
	if len(env.d.Errors()) != 0 {
		t.Errorf("errors kept: %v", env.d.Errors())
	}
}
