package discovery

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestDanglingFolderLinkSaidAsSuch: a symlink at the top of a plugin
// folder whose target is missing (current -> releases/v3 before v3 is
// unpacked, or its folder removed) was said at Info as "file not loaded:
// no loader takes this kind of file", when its name has no artifact's
// extension: the same link was "a symlink to nothing" at Warn when an
// event loaded it, and docs/discovery.md says dangling symlinks are said
// at Warn. Now the scan says so too.
func TestDanglingFolderLinkSaidAsSuch(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "ok.fake"), fakeSpec{ID: "org.test.ok", Version: "1.0.0", Tools: []string{"ok"}})
		if err := os.Symlink(filepath.Join(filepath.Dir(dir), "releases", "v3"), filepath.Join(dir, "current")); err != nil {
			t.Fatal(err)
		}
	}, withLogs(logs))
	link := filepath.Join(env.dir, "current")
	testutil.Eventually(t, "the dangling link said", func() bool {
		return logLines(logs, "file="+link) >= 1
	})
	if n := logLines(logs, "level=WARN", "a symlink to nothing", "file="+link); n != 1 {
		t.Errorf("the dangling link said %d times at Warn as a symlink to nothing, want once:\n%s", n, logs.String())
	}
	if n := logLines(logs, "no loader takes", "file="+link); n != 0 {
		t.Errorf("the dangling link said to be a file no loader takes:\n%s", logs.String())
	}
}

// TestDanglingLinkLoadsWhenTargetComes: a symlink at the top of a plugin
// folder made before the file it points to (ln -s v2.fake tool.fake, then
// v2.fake copied in) loads when that file comes, and goes with it. It was
// skipped as dangling at the scan and never looked at again until a
// refresh: list showed v2.fake alone while the folder held both.
func TestDanglingLinkLoadsWhenTargetComes(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		if err := os.Symlink("v2.fake", filepath.Join(dir, "tool.fake")); err != nil {
			t.Fatal(err)
		}
	})
	sources := func() []string {
		var out []string
		for _, a := range env.d.Adapters() {
			out = append(out, filepath.Base(a.Source))
		}
		slices.Sort(out)
		return out
	}
	writeFake(t, filepath.Join(env.dir, "v2.fake"), fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"a"}})
	testutil.Eventually(t, "the link and its target both known", func() bool {
		return slices.Equal(sources(), []string{"tool.fake", "v2.fake"})
	})
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
	if err := os.Remove(filepath.Join(env.dir, "v2.fake")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "both gone with the target", func() bool { return len(sources()) == 0 })
}

// TestSymlinkLoopSaidAsSuch: two links at the top of a plugin folder that
// point at each other (a.fake -> b.fake -> a.fake) fail to load with an
// error saying they are a loop, not "stat a.fake: too many levels of
// symbolic links"; replacing one with a file loads both.
func TestSymlinkLoopSaidAsSuch(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		for link, to := range map[string]string{"a.fake": "b.fake", "b.fake": "a.fake"} {
			if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
		}
	})
	for _, n := range []string{"a.fake", "b.fake"} {
		p := filepath.Join(env.dir, n)
		if msg := env.d.Errors()[p]; !strings.Contains(msg, p+" is a symlink loop") {
			t.Errorf("error of %s: %q, want it said to be a symlink loop", n, msg)
		}
	}
	if err := os.Remove(filepath.Join(env.dir, "b.fake")); err != nil {
		t.Fatal(err)
	}
	writeFake(t, filepath.Join(env.dir, "b.fake"), fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"a"}})
	testutil.Eventually(t, "both load, no error", func() bool {
		return len(env.d.Adapters()) == 2 && len(env.d.Errors()) == 0
	})
}
