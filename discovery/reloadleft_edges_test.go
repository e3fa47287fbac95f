package discovery

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestWatchFailureLogged: a watch that could not be added (the
// kernel's fs.inotify.max_user_watches reached: ENOSPC from
// inotify_add_watch; a subfolder the host may not read) was dropped
// silently in the provider folders' subfolders (watchTree, aios/) and at
// a root's reappearance, so edits there were never seen and nothing said
// why. Now each failed folder is said at Warn once, naming it, and the
// watch limit once in all, naming the sysctl to raise.
func TestWatchFailureLogged(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	var fail atomic.Pointer[func(path string) error]
	env := newEnvWith(t, "", func(dir string) {
		for _, p := range []string{"a", "b", "c"} {
			writeFake(t, filepath.Join(dir, p, "lib", "tool.fake"), fakeSpec{ID: "org.test." + p, Version: "1.0.0", Tools: []string{p + "-one"}})
			writeFile(t, filepath.Join(dir, p, "adapter.json"), `{
  "adapter": {"id": "org.test.`+p+`", "name": "P", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "lib/tool.fake"}}`)
		}
	}, func(o *Options) {
		withLogs(logs)(o)
		o.addWatch = func(w *fsnotify.Watcher, path string) error {
			if f := fail.Load(); f != nil {
				if err := (*f)(path); err != nil {
					return err
				}
			}
			return w.Add(path)
		}
	})
	failing := func(path string) error {
		switch {
		case strings.HasSuffix(path, filepath.Join("c", "lib")):
			return syscall.EACCES
		case filepath.Base(path) == "lib":
			return syscall.ENOSPC
		}
		return nil
	}
	fail.Store(&failing)
	for range 2 {
		// A subfolder made while the host runs is watched as it comes;
		// here its watch fails.
		for _, p := range []string{"a", "b", "c"} {
			_ = os.RemoveAll(filepath.Join(env.dir, p, "lib"))
			writeFake(t, filepath.Join(env.dir, p, "lib", "tool.fake"), fakeSpec{ID: "org.test." + p, Version: "1.0.0", Tools: []string{p + "-two"}})
		}
		testutil.Eventually(t, "both failures said", func() bool {
			return logLines(logs, "level=WARN", "max_user_watches") >= 1 && logLines(logs, "level=WARN", "cannot watch folder", filepath.Join("c", "lib")) >= 1
		})
		if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
			t.Fatal(err)
		}
	}
	if n := logLines(logs, "level=WARN", "max_user_watches", "sysctl fs.inotify.max_user_watches="); n != 1 {
		t.Errorf("the watch limit said %d times at Warn, want once with the sysctl:\n%s", n, logs.String())
	}
	if n := logLines(logs, "level=WARN", "cannot watch folder", "dir="+filepath.Join(env.dir, "c", "lib"), "permission denied"); n != 1 {
		t.Errorf("c/lib's failed watch said %d times at Warn, want once naming it:\n%s", n, logs.String())
	}
}

// TestDebounceCapped: each change of a unit restarted its debounce
// timer, with no cap, so a folder written more often than
// discovery.debounce (a build, a tool writing beside itself) put its
// reload off for as long as the writes went on. Now a unit's reload waits
// at most maxDebounce after the first of its changes. Here the debounce
// is 10 s (the most taken) and the cap 20 ms: the edit is loaded while
// the writes go on.
func TestDebounceCapped(t *testing.T) {
	env := newEnvWith(t, "debounce: 10s\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "p", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"p"}})
	}, func(o *Options) { o.maxDelay = 20 * time.Millisecond })
	writeFake(t, filepath.Join(env.dir, "p", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "2.0.0", Tools: []string{"p"}})
	stop := make(chan struct{})
	done := make(chan struct{})
	tmp := t.TempDir()
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// The same bytes put in place whole, again and again: the
			// folder changes all the time (each rename an event that put
			// the reload off), but its content does not, so a load is
			// not told that its files changed while it read them, as it
			// was on a loaded machine when the writes changed them.
			// Not writeFake: t.Fatal is for the test's goroutine.
			f := filepath.Join(tmp, "data"+strconv.Itoa(i))
			if os.WriteFile(f, []byte("{}"), 0o644) == nil && os.Rename(f, filepath.Join(env.dir, "p", "data.json")) != nil {
				_ = os.Remove(f)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	defer func() { close(stop); <-done }()
	testutil.Eventually(t, "2.0.0 served while the folder keeps being written", func() bool {
		m, err := env.call("p", 1)
		return err == nil && m["version"] == "2.0.0"
	})
}

// TestRenameSendsUpdated: a plugin renamed in place with the same
// tools (x.js → x.ts; here a.fake → b.fake) changed the provider's
// source, and its runtime, but the registry's event stream (aios/registry
// events, /events) said nothing. Now the swap is one "updated" of the
// provider, with no tool changes, and never a "removed".
func TestRenameSendsUpdated(t *testing.T) {
	env := newEnv(t, "debounce: 20ms\n", nil)
	from := filepath.Join(env.dir, "a.fake")
	to := filepath.Join(env.dir, "b.fake")
	writeFake(t, from, fakeSpec{ID: "org.test.ren", Version: "1.0.0", Tools: []string{"ren"}})
	testutil.Eventually(t, "loaded", func() bool { _, err := env.call("ren", 1); return err == nil })
	events, cancel := env.h.Registry().Subscribe(64)
	defer cancel()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "served from the new name", func() bool { return activeSource(env.d, "org.test.ren") == to })
	var got []string
	for len(events) > 0 {
		if ev := <-events; ev.Provider != nil {
			got = append(got, ev.Provider.Action)
		}
	}
	if !slices.Equal(got, []string{"updated"}) {
		t.Errorf("events of the rename: %v, want [updated]", got)
	}
}

// TestUnchangedCardRecheckedAtLowerTrust: an unchanged signed card
// was checked again only for its key being gone: a key still trusted,
// but now at a lower level (removed from the Verified key set, still in
// a Community one), kept its provider served at the first level until a
// restart. Now the unit is loaded again at the level its signature
// verifies at, as remote cards already were (TestRemoteResignedAtLowerTrust).
func TestUnchangedCardRecheckedAtLowerTrust(t *testing.T) {
	k := newTestKey(t, "Verified")
	verifiedURL, revoked := revocableJWKS(t, k)
	communityURL, _ := revocableJWKS(t, k)
	card := `{"adapter": {"id": "org.test.low", "name": "L", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	env := newEnv(t, "watch: false\nkeys: [{trust: Verified, jwks_url: "+verifiedURL+"}, {trust: Community, jwks_url: "+communityURL+"}]\n", func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "low"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"low-echo"}})
	})
	if p := env.h.Registry().Provider("org.test.low"); p == nil || p.Trust != abi.Verified {
		t.Fatalf("org.test.low not served at Verified: %+v %v", p, env.d.Errors())
	}
	revoked(true)
	env.d.Keys().TTL, env.d.Keys().MinRefetch = 0, 0 // refetch at once
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if p := env.h.Registry().Provider("org.test.low"); p == nil || p.Trust != abi.Community {
		t.Fatalf("after its key left the Verified set: %+v, want served at Community; errors %v", p, env.d.Errors())
	}
}

// TestSymlinkedTwiceKeepsReloading: two symlinks to one folder
// (plugins/a and plugins/b → pkg) share one inotify watch, which fsnotify
// names by the first path added: an edit in pkg reloaded a only (b, its
// shadowed copy, kept the old code and served it when a went), and
// removing the symlink a ended the shared watch, so edits in pkg never
// reloaded b again. Now an edit under one name counts for every name of
// the folder, and the watch stays while a name of it is left.
func TestSymlinkedTwiceKeepsReloading(t *testing.T) {
	ext := filepath.Join(t.TempDir(), "pkg")
	writeFake(t, filepath.Join(ext, "tool.fake"), fakeSpec{ID: "org.test.sym", Version: "1.0.0", Tools: []string{"sym"}})
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		for _, n := range []string{"a", "b"} {
			if err := os.Symlink(ext, filepath.Join(dir, n)); err != nil {
				t.Skip("symlinks:", err)
			}
		}
	})
	version := func() any {
		m, err := env.call("sym", 1)
		if err != nil {
			return err.Error()
		}
		return m["version"]
	}
	if v := version(); v != "1.0.0" {
		t.Fatalf("not served: %v %v", v, env.d.Errors())
	}
	first := activeSource(env.d, "org.test.sym")
	writeFake(t, filepath.Join(ext, "tool.fake"), fakeSpec{ID: "org.test.sym", Version: "2.0.0", Tools: []string{"sym"}})
	testutil.Eventually(t, "2.0.0 served", func() bool { return version() == "2.0.0" })
	if err := os.Remove(first); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(env.dir, "a")
	if first == other {
		other = filepath.Join(env.dir, "b")
	}
	testutil.Eventually(t, "served by the other link", func() bool { return activeSource(env.d, "org.test.sym") == other })
	if v := version(); v != "2.0.0" {
		t.Errorf("the other link serves %v after the first went, want 2.0.0 (its copy was not reloaded)", v)
	}
	writeFake(t, filepath.Join(ext, "tool.fake"), fakeSpec{ID: "org.test.sym", Version: "3.0.0", Tools: []string{"sym"}})
	testutil.Eventually(t, "3.0.0 served through the remaining link", func() bool { return version() == "3.0.0" })
}
