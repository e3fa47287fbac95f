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
