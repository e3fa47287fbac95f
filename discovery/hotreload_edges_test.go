package discovery

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// toolNames lists the names of the registered tools of provider id.
func toolNames(env *testEnv, id string) []string {
	var out []string
	for _, e := range env.h.Registry().Tools() {
		if e.Provider != nil && e.Provider.Info.ID == id {
			out = append(out, e.Def.Name)
		}
	}
	slices.Sort(out)
	return out
}

// TestNestedFileEditReloads: a provider folder's files below its top
// level were never seen by the watch: a card whose artifact.path is
// build/tool.fake (a build writing its output there) and a file the
// artifact imports from a subfolder (./lib/util.js, a Python package)
// count in the unit's digest, and aios/registry.refresh reloaded them, but
// the watch dropped every event deeper than the folder's top (and its
// aios/), so `npm run build` or an edit of lib/util.js left the old
// version serving until a refresh or a restart. Now an edit at any depth
// of a provider folder (hidden entries, __pycache__ and node_modules left
// out) reloads its unit, also in a subfolder made after the start.
func TestNestedFileEditReloads(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "c", "build", "tool.fake"), fakeSpec{ID: "org.test.c", Version: "1.0.0", Tools: []string{"c-one"}})
		writeFile(t, filepath.Join(dir, "c", "adapter.json"), `{
  "adapter": {"id": "org.test.c", "name": "C", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "build/tool.fake"}}`)
		writeFake(t, filepath.Join(dir, "f", "tool.fake"), fakeSpec{ID: "org.test.f", Version: "1.0.0", Tools: []string{"f-one"}})
		writeFile(t, filepath.Join(dir, "f", "lib", "deep", "util.js"), "export const word = 'one';\n")
	})
	if got := toolNames(env, "org.test.c"); !slices.Equal(got, []string{"c-one"}) {
		t.Fatalf("org.test.c serves %v; errors %v", got, env.d.Errors())
	}
	// A rebuild of the artifact a card names in a subfolder.
	writeFake(t, filepath.Join(env.dir, "c", "build", "tool.fake"), fakeSpec{ID: "org.test.c", Version: "1.0.0", Tools: []string{"c-two"}})
	testutil.Eventually(t, "rebuilt build/tool.fake served", func() bool {
		return slices.Equal(toolNames(env, "org.test.c"), []string{"c-two"})
	})
	// An edit of an imported file two folders down.
	before := env.load.loads.Load()
	writeFile(t, filepath.Join(env.dir, "f", "lib", "deep", "util.js"), "export const word = 'two';\n")
	testutil.Eventually(t, "f reloaded after lib/deep/util.js changed", func() bool { return env.load.loads.Load() > before })
	// A subfolder made while the host runs is watched too.
	if err := os.MkdirAll(filepath.Join(env.dir, "f", "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "f settled", func() bool { return len(env.d.Errors()) == 0 })
	before = env.load.loads.Load()
	writeFile(t, filepath.Join(env.dir, "f", "more", "x.js"), "export const x = 1;\n")
	testutil.Eventually(t, "f reloaded after more/x.js appeared", func() bool { return env.load.loads.Load() > before })
	// Folders that hold no code are not followed: npm filling
	// node_modules, Python writing __pycache__, git its .git.
	for _, rel := range []string{"f/node_modules/x/index.js", "f/__pycache__/tool.pyc", "f/.git/objects/ab/cd", "f/lib/.util.js.swp", "f/lib/util.js~"} {
		if u, ok := env.d.unitOf(filepath.Join(env.dir, filepath.FromSlash(rel))); ok {
			t.Errorf("a change of %s reloads %s", rel, u)
		}
	}
}

// TestRenamedFolderSubfoldersWatched: a provider folder renamed in
// place (mv pkg pkg2) kept its subfolders' watches under the old name
// (an inotify watch follows its folder; fsnotify names its events by the
// path it was added as, and adding the new path finds the same watch), so
// an edit of pkg2/aios/adapter.json or pkg2/build/tool.fake was taken for
// a change of the gone pkg and the renamed package never reloaded. Now
// the watches below a folder that moves away go with it, and the folder
// under its new name is watched afresh.
func TestRenamedFolderSubfoldersWatched(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "pkg", "build", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"aios-echo"}})
		writeFile(t, filepath.Join(dir, "pkg", "aios", "adapter.json"), aiosCard("org.test.pkg", "1.0.0", "build/tool.fake"))
	})
	if toolDescOf(env, "aios-echo") != "card 1.0.0" {
		t.Fatalf("not loaded: %v", env.d.Errors())
	}
	pkg2 := filepath.Join(env.dir, "pkg2")
	if err := os.Rename(filepath.Join(env.dir, "pkg"), pkg2); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "pkg2 serving", func() bool {
		a, ok := env.d.Adapter("org.test.pkg")
		return ok && a.Active && a.Source == pkg2
	})
	writeFile(t, filepath.Join(pkg2, "aios", "adapter.json"), aiosCard("org.test.pkg", "1.1.0", "build/tool.fake"))
	testutil.Eventually(t, "pkg2/aios/adapter.json edit loaded", func() bool { return toolDescOf(env, "aios-echo") == "card 1.1.0" })
	writeFake(t, filepath.Join(pkg2, "build", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"aios-echo", "more"}})
	testutil.Eventually(t, "pkg2/build/tool.fake rebuild loaded", func() bool {
		return slices.Equal(toolNames(env, "org.test.pkg"), []string{"aios-echo", "more"})
	})
}

// TestGoneWhileLoadingNotAnError: a file deleted while it loads (git
// checkout removing a file the watch had just seen, a tool's temporary
// renamed away) made its load fail with "no such file or directory",
// logged at ERROR as a broken provider though nothing is wrong: its own
// event unloads it a moment later. A load that fails while the unit's
// files changed under it is said at Info, as a load that succeeded on
// bytes that changed meanwhile was already ("changed while it was
// loading"); a load that fails on the bytes still there stays an error.
func TestGoneWhileLoadingNotAnError(t *testing.T) {
	var logs testutil.SyncBuffer
	env := newEnvWith(t, "", nil, withLogs(&logs))
	started, release := make(chan struct{}, 1), make(chan struct{})
	hook := func(path string) {
		if filepath.Base(path) == "gone.fake" {
			select {
			case started <- struct{}{}:
			default:
			}
			<-release
		}
	}
	env.load.beforeRead.Store(&hook)
	gone := filepath.Join(env.dir, "gone.fake")
	writeFake(t, gone, fakeSpec{ID: "org.test.gone", Version: "1.0.0", Tools: []string{"gone-echo"}})
	<-started
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	close(release)
	testutil.Eventually(t, "the failed load said and its unit settled", func() bool {
		_, failed := env.d.Errors()[gone]
		return logLines(&logs, "provider not loaded", "gone.fake") > 0 && !failed
	})
	if n := logLines(&logs, "level=ERROR"); n > 0 {
		t.Errorf("a file deleted while it loaded was logged as an error:\n%s", logs.String())
	}
	// A file that is broken as it stands is still an error.
	writeFile(t, filepath.Join(env.dir, "bad.fake"), "{not json")
	testutil.Eventually(t, "bad.fake refused", func() bool {
		return logLines(&logs, "level=ERROR", "provider not loaded", "bad.fake") > 0
	})
}

// TestTouchChmodNoReload guards the documented choice (no defect):
// `touch` (times only) and `chmod` (mode only) of a provider's file are
// not changes of its content, so neither the watch nor a refresh loads it
// again.
func TestTouchChmodNoReload(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a-echo"}})
		writeFake(t, filepath.Join(dir, "pkg", "tool.fake"), fakeSpec{ID: "org.test.pkg", Version: "1.0.0", Tools: []string{"pkg-echo"}})
	})
	before := env.load.loads.Load()
	later := time.Now().Add(time.Hour)
	for _, f := range []string{"a.fake", "pkg/tool.fake"} {
		p := filepath.Join(env.dir, filepath.FromSlash(f))
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for _, u := range []string{"a.fake", "pkg"} {
		if err := env.d.reconcile(ctx, filepath.Join(env.dir, u)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := env.d.Refresh(ctx, "local"); err != nil {
		t.Fatal(err)
	}
	if n := env.load.loads.Load() - before; n != 0 {
		t.Errorf("touch and chmod loaded %d providers again", n)
	}
	if _, err := env.call("a-echo", 1); err != nil {
		t.Errorf("a-echo after touch: %v", err)
	}
}

// TestRenamedFolderTopWatched: after `mv pkg pkg2` the watch of pkg
// itself (which follows the folder) was still there when pkg2 was added:
// adding pkg2 found that same watch, under the name pkg, and fsnotify then
// dropped it on the move's IN_MOVE_SELF, so, depending on which came
// first, the renamed folder was watched under its old name or not at all,
// and an edit of pkg2/tool.fake was never loaded. The watch of a folder
// that moves away ends at its Rename event; its new name is watched
// afresh.
func TestRenamedFolderTopWatched(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "pkg0", "tool.fake"), fakeSpec{ID: "org.test.pkg", Version: "1.0.0", Tools: []string{"t0"}})
	})
	for i := 1; i <= 10; i++ {
		from, to := filepath.Join(env.dir, fmt.Sprintf("pkg%d", i-1)), filepath.Join(env.dir, fmt.Sprintf("pkg%d", i))
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, to+" serving", func() bool {
			a, ok := env.d.Adapter("org.test.pkg")
			return ok && a.Active && a.Source == to
		})
		tool := fmt.Sprintf("t%d", i)
		writeFile(t, filepath.Join(to, "tool.fake"), fmt.Sprintf(`{"id": "org.test.pkg", "version": "1.0.0", "tools": [%q]}`, tool))
		testutil.Eventually(t, "the edit of "+to+"/tool.fake loaded", func() bool {
			return slices.Equal(toolNames(env, "org.test.pkg"), []string{tool})
		})
	}
}

// TestStagedInstallWatched: an installer that builds a package in a
// hidden folder and renames it into place (plugins/.pkg.tmp → plugins/pkg)
// left pkg watched under the hidden name, whose events are ignored, or not
// watched at all (the watch added for .pkg.tmp was found again for pkg):
// edits of the installed package were never loaded. Hidden folders are
// not watched, and a folder's watch ends when it is renamed.
func TestStagedInstallWatched(t *testing.T) {
	env := newEnv(t, "", nil)
	stage := filepath.Join(env.dir, ".pkg.tmp")
	writeFake(t, filepath.Join(stage, "tool.fake"), fakeSpec{ID: "org.test.staged", Version: "1.0.0", Tools: []string{"s1"}})
	// Events are handled in order: once this loads, .pkg.tmp was seen.
	writeFake(t, filepath.Join(env.dir, "mark.fake"), fakeSpec{ID: "org.test.mark", Version: "1.0.0", Tools: []string{"mark"}})
	testutil.Eventually(t, "mark loaded", func() bool { return env.h.Registry().Provider("org.test.mark") != nil })
	pkg := filepath.Join(env.dir, "pkg")
	if err := os.Rename(stage, pkg); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "pkg serving", func() bool { return slices.Equal(toolNames(env, "org.test.staged"), []string{"s1"}) })
	writeFile(t, filepath.Join(pkg, "tool.fake"), `{"id": "org.test.staged", "version": "1.0.0", "tools": ["s2"]}`)
	testutil.Eventually(t, "the edit of pkg/tool.fake loaded", func() bool {
		return slices.Equal(toolNames(env, "org.test.staged"), []string{"s2"})
	})
}

// TestEditorTemporariesIgnored: the temporaries of common editors
// other than vim's swap and backup files — emacs's auto-save #x.js#,
// JetBrains' safe-write x.js___jb_tmp___ and x.js___jb_old___, vim's
// 4913 (the file it makes to see whether it may write in the folder) —
// were not among the ignored editor temporaries: each save in a provider
// folder said at Info that they are files no loader takes, and a refresh
// said so of those at the top of a plugin folder.
func TestEditorTemporariesIgnored(t *testing.T) {
	temps := []string{"#tool.fake#", "tool.fake___jb_tmp___", "tool.fake___jb_old___", "4913"}
	var logs testutil.SyncBuffer
	env := newEnvWith(t, "watch: false\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "pkg", "tool.fake"), fakeSpec{ID: "org.test.pkg", Version: "1.0.0", Tools: []string{"pkg-echo"}})
		for _, n := range temps {
			writeFile(t, filepath.Join(dir, "pkg", n), "x")
			writeFile(t, filepath.Join(dir, n), "x")
		}
	}, withLogs(&logs))
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	for _, n := range temps {
		if logLines(&logs, n) > 0 {
			t.Errorf("%s mentioned:\n%s", n, logs.String())
		}
	}
	if len(env.d.Errors()) != 0 || env.h.Registry().Provider("org.test.pkg") == nil {
		t.Fatalf("pkg not loaded: %v", env.d.Errors())
	}
}
