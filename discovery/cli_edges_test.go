package discovery

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestNegativeDurations: a negative discovery.debounce or
// remote_refresh was taken as "unset" (the default) without a word.
func TestNegativeDurations(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"discovery:\n  debounce: -1s\n", "c.yaml:2: discovery.debounce: "},
		{"discovery:\n  remote_refresh: -5m\n", "c.yaml:2: discovery.remote_refresh: "},
	} {
		cfg, err := config.Parse([]byte(tc.yaml), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	cfg, err := config.Parse([]byte("discovery:\n  debounce: 0s\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := LoadConfig(cfg); err != nil || c.Debounce != DefaultDebounce {
		t.Errorf("debounce 0s: %v, %v", c.Debounce, err)
	}
}

// TestFailedFolderGoneClearsError: a provider folder that failed to
// load (two artifacts, no choice) kept its error in Errors() for good
// after the folder was removed: the removal event of a name with no
// loadable extension and no loaded provider was ignored, and Refresh only
// looked at units with a loaded provider.
func TestFailedFolderGoneClearsError(t *testing.T) {
	env := newEnv(t, "", nil)
	// A symbolic link to a folder: its removal is one event, for the link.
	outside := t.TempDir()
	writeFake(t, filepath.Join(outside, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a"}})
	writeFake(t, filepath.Join(outside, "b.fake"), fakeSpec{ID: "org.test.b", Version: "1.0.0", Tools: []string{"b"}})
	link := filepath.Join(env.dir, "linked")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "error reported", func() bool { return env.d.Errors()[link] != "" })
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "error cleared after the link went", func() bool { return env.d.Errors()[link] == "" })

	sub := filepath.Join(env.dir, "twoart")

	// Refresh clears what the watch missed.
	writeFake(t, filepath.Join(sub, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a"}})
	writeFake(t, filepath.Join(sub, "b.fake"), fakeSpec{ID: "org.test.b", Version: "1.0.0", Tools: []string{"b"}})
	testutil.Eventually(t, "error reported again", func() bool { return env.d.Errors()[sub] != "" })
	env.d.mu.Lock()
	env.d.errs[filepath.Join(env.dir, "never-there")] = "stale"
	env.d.mu.Unlock()
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if e := env.d.Errors()[filepath.Join(env.dir, "never-there")]; e != "" {
		t.Errorf("Refresh kept the error of a unit that is gone: %q", e)
	}
	if env.d.Errors()[sub] == "" {
		t.Error("Refresh dropped the error of a unit still failing")
	}
}
