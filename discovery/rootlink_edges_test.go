package discovery

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLinkToRootNoProvider: a symlink in a plugin folder to the folder
// itself or to a folder above it (loop -> ., up -> ..) is no provider
// folder: it is skipped with a warning, not loaded as the plugin folder's
// files again ("several artifacts" naming them, or a second copy of a
// lone file's provider), and an edit in a provider folder reloads that
// provider alone, not the link's copy of it too.
func TestLinkToRootNoProvider(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "ok.fake"), fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"a"}})
		writeFake(t, filepath.Join(dir, "pkg", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"p"}})
		for link, to := range map[string]string{"loop": ".", "up": ".."} {
			if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
		}
	}, withLogs(logs))
	sources := func() []string {
		var out []string
		for _, a := range env.d.Adapters() {
			rel, _ := filepath.Rel(env.dir, a.Source)
			out = append(out, rel)
		}
		slices.Sort(out)
		return out
	}
	testutil.Eventually(t, "both providers", func() bool {
		return slices.Equal(toolNames(env, "org.test.x"), []string{"a"}) && slices.Equal(toolNames(env, "org.test.p"), []string{"p"})
	})
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
	for _, link := range []string{"loop", "up"} {
		if n := logLines(logs, "level=WARN", "symlink to the plugin folder itself", filepath.Join(env.dir, link)); n != 1 {
			t.Errorf("%s warned about %d times, want once:\n%s", link, n, logs.String())
		}
	}
	n := env.load.loads.Load()
	writeFake(t, filepath.Join(env.dir, "pkg", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"q"}})
	testutil.Eventually(t, "edit served", func() bool { return slices.Equal(toolNames(env, "org.test.p"), []string{"q"}) })
	testutil.Eventually(t, "settled", func() bool {
		env.d.mu.Lock()
		defer env.d.mu.Unlock()
		return len(env.d.unsettled) == 0 && len(env.d.pending) == 0
	})
	if got := env.load.loads.Load() - n; got != 1 {
		t.Errorf("an edit of pkg loaded %d providers, want 1 (sources %v)", got, sources())
	}
	if got := sources(); !slices.Equal(got, []string{"ok.fake", "pkg"}) {
		t.Errorf("adapters from %v, want ok.fake and pkg", got)
	}
}
