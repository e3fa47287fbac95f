package discovery

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLinterCopiesIgnored: Emacs's flycheck (its in-place checkers:
// pylint, mypy, …) writes the buffer being edited, saved or not, to
// flycheck_<name> beside the file and deletes it when the check is done;
// the older flymake writes <name>_flymake.<ext>. Each was taken for a
// plugin: at the top of a plugin folder a provider of its own (the
// unsaved code, served when its version is higher), in a provider folder
// a second artifact ("several artifacts"), and the folder's code digest
// changed, a reload at each check. They are ignored now, as editors'
// other temporaries are.
func TestLinterCopiesIgnored(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "x.fake"), fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"x"}})
		writeFake(t, filepath.Join(dir, "pkg", "main.fake"), fakeSpec{ID: "org.test.pkg", Version: "1.0.0", Tools: []string{"p"}})
	})
	loads := env.load.loads.Load()
	unsaved := fakeSpec{ID: "org.test.x", Version: "1.0.1", Tools: []string{"unsaved"}}
	unsavedPkg := fakeSpec{ID: "org.test.pkg", Version: "1.0.1", Tools: []string{"unsaved-p"}}
	copies := []string{
		filepath.Join(env.dir, "flycheck_x.fake"),
		filepath.Join(env.dir, "x_flymake.fake"),
		filepath.Join(env.dir, "pkg", "flycheck_main.fake"),
		filepath.Join(env.dir, "pkg", "main_flymake.fake"),
	}
	for i, p := range copies {
		s := unsaved
		if i >= 2 {
			s = unsavedPkg
		}
		writeFake(t, p, s)
	}
	// A change after them: once it is served, theirs were looked at.
	writeFake(t, filepath.Join(env.dir, "y.fake"), fakeSpec{ID: "org.test.y", Version: "1.0.0", Tools: []string{"y"}})
	testutil.Eventually(t, "y served", func() bool { return env.h.Registry().Provider("org.test.y") != nil })
	if got := toolNames(env, "org.test.x"); !slices.Equal(got, []string{"x"}) {
		t.Errorf("beside the copies org.test.x serves %v, want [x]", got)
	}
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Errorf("beside the copies: errors %v", errs)
	}
	for _, p := range copies {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	writeFake(t, filepath.Join(env.dir, "z.fake"), fakeSpec{ID: "org.test.z", Version: "1.0.0", Tools: []string{"z"}})
	testutil.Eventually(t, "z served", func() bool { return env.h.Registry().Provider("org.test.z") != nil })
	if got := toolNames(env, "org.test.x"); !slices.Equal(got, []string{"x"}) {
		t.Errorf("org.test.x serves %v, want [x]", got)
	}
	if got := toolNames(env, "org.test.pkg"); !slices.Equal(got, []string{"p"}) {
		t.Errorf("org.test.pkg serves %v, want [p]", got)
	}
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
	if n := env.load.loads.Load() - loads; n != 2 {
		t.Errorf("%d loads while the linters' copies came and went, want 2 (y and z)", n)
	}
	for _, a := range env.d.Adapters() {
		if b := filepath.Base(a.Source); b != "x.fake" && b != "pkg" && b != "y.fake" && b != "z.fake" {
			t.Errorf("adapter from %s", a.Source)
		}
	}
}

// TestLinterCopiesNotCode: a linter's copy of a module (flycheck_helper.py,
// lib/util_flymake.js) is not part of the unit's code: its coming and going
// changed the digest, and the provider was loaded again at the next change.
func TestLinterCopiesNotCode(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tool.py"), "v1")
	writeFile(t, filepath.Join(dir, "helper.py"), "v1")
	writeFile(t, filepath.Join(dir, "tool.js"), "v1")
	writeFile(t, filepath.Join(dir, "lib", "util.js"), "v1")
	ctx := context.Background()
	py, js := codeDigest(ctx, dir, filepath.Join(dir, "tool.py"), 1<<20), codeDigest(ctx, dir, filepath.Join(dir, "tool.js"), 1<<20)
	writeFile(t, filepath.Join(dir, "flycheck_helper.py"), "unsaved")
	writeFile(t, filepath.Join(dir, "lib", "util_flymake.js"), "unsaved")
	if d := codeDigest(ctx, dir, filepath.Join(dir, "tool.py"), 1<<20); d != py {
		t.Error("flycheck_helper.py changed the Python unit's digest")
	}
	if d := codeDigest(ctx, dir, filepath.Join(dir, "tool.js"), 1<<20); d != js {
		t.Error("lib/util_flymake.js changed the JS unit's digest")
	}
}
