package discovery

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLinkedCodeFolderReloads: a provider folder whose code is partly in
// a folder it links to (pkg/lib -> ../shared, a monorepo's shared code)
// is reloaded when a file there is edited. The watch and the unit's
// digest did not enter the link, so the edit was never loaded, not even
// by a refresh. Links back to the folder or above it are not followed.
func TestLinkedCodeFolderReloads(t *testing.T) {
	var shared string
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		shared = filepath.Join(filepath.Dir(dir), "shared")
		if err := os.MkdirAll(filepath.Join(shared, "deep"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"util.js", "deep/more.js"} {
			if err := os.WriteFile(filepath.Join(shared, f), []byte("1"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		writeFake(t, filepath.Join(dir, "pkg", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"p"}})
		for link, to := range map[string]string{"lib": shared, "self": ".", "up": "..", "top": dir} {
			if err := os.Symlink(to, filepath.Join(dir, "pkg", link)); err != nil {
				t.Fatal(err)
			}
		}
	})
	testutil.Eventually(t, "pkg loaded", func() bool { return slices.Equal(toolNames(env, "org.test.p"), []string{"p"}) })
	for i, f := range []string{"util.js", "deep/more.js"} {
		n := env.load.loads.Load()
		if err := os.WriteFile(filepath.Join(shared, f), []byte{'2' + byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, "pkg reloaded after shared/"+f+" was edited", func() bool { return env.load.loads.Load() > n })
	}
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
}
