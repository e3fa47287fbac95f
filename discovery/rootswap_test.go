package discovery

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// A plugin folder replaced by another between two root checks (an
// installer moving a fresh copy into place) is watched again: the new
// folder's providers load, the old one's go, and files added later load.
func TestRootSwappedBetweenChecks(t *testing.T) {
	old := rootCheckInterval
	rootCheckInterval = 200 * time.Millisecond
	defer func() { rootCheckInterval = old }()
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a"}})
	})
	if _, err := env.call("a", 1); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(filepath.Dir(env.dir), "plugins.new")
	writeFake(t, filepath.Join(fresh, "b.fake"), fakeSpec{ID: "org.test.b", Version: "1.0.0", Tools: []string{"b"}})
	if err := os.Rename(env.dir, filepath.Join(filepath.Dir(env.dir), "plugins.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(fresh, env.dir); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the new folder's provider", func() bool { _, err := env.call("b", 1); return err == nil })
	testutil.Eventually(t, "the old folder's provider gone", func() bool { _, err := env.call("a", 1); return abi.CodeOf(err) == abi.NotFound })
	writeFake(t, filepath.Join(env.dir, "c.fake"), fakeSpec{ID: "org.test.c", Version: "1.0.0", Tools: []string{"c"}})
	testutil.Eventually(t, "a file added to the new folder", func() bool { _, err := env.call("c", 1); return err == nil })
}

// rm -rf plugins && mkdir plugins within one root check: the new folder
// is watched.
func TestRootRecreatedBetweenChecks(t *testing.T) {
	old := rootCheckInterval
	rootCheckInterval = 200 * time.Millisecond
	defer func() { rootCheckInterval = old }()
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a"}})
	})
	if err := os.RemoveAll(env.dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(env.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // past a root check
	writeFake(t, filepath.Join(env.dir, "c.fake"), fakeSpec{ID: "org.test.c", Version: "1.0.0", Tools: []string{"c"}})
	testutil.Eventually(t, "a file added to the re-made folder", func() bool { _, err := env.call("c", 1); return err == nil })
	if _, err := env.call("a", 1); abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("the deleted folder's provider: %v", err)
	}
}
