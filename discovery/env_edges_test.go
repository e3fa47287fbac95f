package discovery

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestRootReplacedByFile: a plugin folder replaced by a regular file
// of the same name (rm -rf plugins; a script writing "plugins" as a file)
// is gone: its providers go, as the log says ("plugin folder is gone; its
// providers are removed"), and come back with the folder. Before, stat of
// each unit failed with ENOTDIR, taken for a failed load ("the previous
// version keeps serving"): the removed folder's tools went on serving.
func TestRootReplacedByFile(t *testing.T) {
	old := rootCheckInterval
	rootCheckInterval = 200 * time.Millisecond
	defer func() { rootCheckInterval = old }()
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a"}})
	})
	if _, err := env.call("a", 1); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(env.dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env.dir, []byte("not a folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the replaced folder's provider gone", func() bool { _, err := env.call("a", 1); return abi.CodeOf(err) == abi.NotFound })
	if err := os.Remove(env.dir); err != nil {
		t.Fatal(err)
	}
	writeFake(t, filepath.Join(env.dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a"}})
	testutil.Eventually(t, "the provider back with its folder", func() bool { _, err := env.call("a", 1); return err == nil })
}
