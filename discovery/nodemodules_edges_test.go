package discovery

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestTopLevelNodeModulesNoProvider: node_modules (an npm install beside a
// top-level tool.ts) and __pycache__ (python3 tool.py run in the plugin
// folder) at the top of a plugin folder hold no provider. They were read
// as provider folders ("folder describes no provider") and watched, up to
// 1000 of node_modules' folders with a warning about a provider folder
// of too many subfolders, and each change there reloaded them.
func TestTopLevelNodeModulesNoProvider(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "ok.fake"), fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"a"}})
		writeFake(t, filepath.Join(dir, "__pycache__", "tool.fake"), fakeSpec{ID: "org.test.c", Version: "1.0.0", Tools: []string{"c"}})
	}, withLogs(logs))
	testutil.Eventually(t, "ok.fake served", func() bool { return slices.Equal(toolNames(env, "org.test.x"), []string{"a"}) })
	w0 := inotifyWatches()
	// npm install after the host started: the folder and its packages come.
	for i := range 20 {
		writeFake(t, filepath.Join(env.dir, "node_modules", fmt.Sprint("pkg", i), "tool.fake"), fakeSpec{ID: "org.test.n", Version: "1.0.0", Tools: []string{"n"}})
	}
	// A change the watch does see, after those: when it is served, the
	// events of node_modules have been handled.
	writeFake(t, filepath.Join(env.dir, "ok.fake"), fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"b"}})
	testutil.Eventually(t, "ok.fake edit served", func() bool { return slices.Equal(toolNames(env, "org.test.x"), []string{"b"}) })
	testutil.Eventually(t, "settled", func() bool {
		env.d.mu.Lock()
		defer env.d.mu.Unlock()
		return len(env.d.unsettled) == 0 && len(env.d.pending) == 0
	})
	if w := inotifyWatches(); w > w0 {
		t.Errorf("inotify watches %d after node_modules was made, %d before", w, w0)
	}
	for _, a := range env.d.Adapters() {
		if a.ID != "org.test.x" {
			t.Errorf("adapter %s from %s", a.ID, a.Source)
		}
	}
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
	if n := logLines(logs, "node_modules") + logLines(logs, "__pycache__"); n != 0 {
		t.Errorf("node_modules or __pycache__ said %d times:\n%s", n, logs.String())
	}
}
