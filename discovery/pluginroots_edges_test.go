package discovery

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
)

// newEnvRoots is newEnv with the plugin folders given (none made).
func newEnvRoots(t *testing.T, roots []string, discoveryYAML string) *testEnv {
	t.Helper()
	dir := t.TempDir()
	doc := "plugins: [" + strings.Join(roots, ", ") + "]\ndata: " + filepath.Join(dir, "data") + "\naudit: {disabled: true}\n" +
		"rate_limits: {global: {per_second: 1000000000, burst: 1000000000}}\n" +
		"discovery:\n  dirs: []\n" + indent(discoveryYAML)
	cfg, err := config.Parse([]byte(doc), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fl := &fakeLoader{}
	h, err := host.New(host.Options{Config: cfg, Loaders: []abi.Loader{fl}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Options{Host: h, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = d.Close()
		_ = h.Close()
	})
	return &testEnv{h: h, d: d, dir: roots[0], cfg: cfg, load: fl}
}

// TestRootListedTwiceFollowsDisk: one plugin folder listed twice, once
// through a symlink (plugins: [/srv/aios, /opt/aios], /opt/aios ->
// /srv/aios). The kernel watches the folder once and its events name the
// first root only, so the second root's copy of each file was never
// reloaded: it kept the code it had at start, and when the file was
// deleted that copy took over and served the long-replaced version of a
// file no longer on disk. Both names of a changed file are reloaded now.
func TestRootListedTwiceFollowsDisk(t *testing.T) {
	base := t.TempDir()
	srv, opt := filepath.Join(base, "srv"), filepath.Join(base, "opt")
	writeFake(t, filepath.Join(srv, "x.fake"), fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"x-one"}})
	writeFake(t, filepath.Join(srv, "pkg", "tool.fake"), fakeSpec{ID: "org.test.pkg", Version: "1.0.0", Tools: []string{"pkg-one"}})
	if err := os.Symlink(srv, opt); err != nil {
		t.Fatal(err)
	}
	env := newEnvRoots(t, []string{srv, opt}, "debounce: 10ms\n")
	if got := toolNames(env, "org.test.x"); !slices.Equal(got, []string{"x-one"}) {
		t.Fatalf("org.test.x serves %v; errors %v", got, env.d.Errors())
	}
	writeFake(t, filepath.Join(srv, "x.fake"), fakeSpec{ID: "org.test.x", Version: "1.1.0", Tools: []string{"x-two"}})
	testutil.Eventually(t, "both names of x.fake loaded again", func() bool {
		open := env.load.open()
		return slices.Equal(toolNames(env, "org.test.x"), []string{"x-two"}) &&
			slices.Contains(open, "org.test.x@1.1.0") && !slices.Contains(open, "org.test.x@1.0.0")
	})
	if err := os.Remove(filepath.Join(srv, "x.fake")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "x.fake's provider gone under both names", func() bool {
		return len(toolNames(env, "org.test.x")) == 0 && !slices.ContainsFunc(env.load.open(), func(s string) bool {
			return strings.HasPrefix(s, "org.test.x@")
		})
	})
	// A provider folder's files too (their watch is shared as well).
	if err := os.Remove(filepath.Join(srv, "pkg", "tool.fake")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "pkg's provider gone under both names", func() bool {
		return len(toolNames(env, "org.test.pkg")) == 0 && !slices.ContainsFunc(env.load.open(), func(s string) bool {
			return strings.HasPrefix(s, "org.test.pkg@")
		})
	})
	if _, ok := env.d.Adapter("org.test.x"); ok {
		t.Errorf("discovery still holds org.test.x: %+v", env.d.Adapters())
	}
}

// TestRootInsideRootReloads: a plugin folder of the list inside another
// (plugins: [~/aios, ~/aios/extra]). The inner folder was also taken for
// a provider folder of the outer one (an error, "several artifacts", when
// it held more than one file), and every change in it was mapped to that
// unit of the outer root, never to the inner root's own units: an edit of
// extra/x.fake, or a file added there, was not loaded until a restart.
// Now the deepest root owns what is under it, and the outer one does not
// read the inner as one of its provider folders.
func TestRootInsideRootReloads(t *testing.T) {
	outer := filepath.Join(t.TempDir(), "aios")
	inner := filepath.Join(outer, "extra")
	writeFake(t, filepath.Join(outer, "o.fake"), fakeSpec{ID: "org.test.o", Version: "1.0.0", Tools: []string{"o-one"}})
	writeFake(t, filepath.Join(inner, "x.fake"), fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"x-one"}})
	writeFake(t, filepath.Join(inner, "y.fake"), fakeSpec{ID: "org.test.y", Version: "1.0.0", Tools: []string{"y-one"}})
	env := newEnvRoots(t, []string{outer, inner}, "debounce: 10ms\n")
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Errorf("errors after the first scan: %v", errs)
	}
	if got := toolNames(env, "org.test.x"); !slices.Equal(got, []string{"x-one"}) {
		t.Fatalf("org.test.x serves %v; errors %v", got, env.d.Errors())
	}
	writeFake(t, filepath.Join(inner, "x.fake"), fakeSpec{ID: "org.test.x", Version: "1.1.0", Tools: []string{"x-two"}})
	testutil.Eventually(t, "the edit of extra/x.fake loaded", func() bool {
		return slices.Equal(toolNames(env, "org.test.x"), []string{"x-two"})
	})
	writeFake(t, filepath.Join(inner, "z.fake"), fakeSpec{ID: "org.test.z", Version: "1.0.0", Tools: []string{"z-one"}})
	testutil.Eventually(t, "extra/z.fake loaded", func() bool { return slices.Equal(toolNames(env, "org.test.z"), []string{"z-one"}) })
	writeFake(t, filepath.Join(outer, "o.fake"), fakeSpec{ID: "org.test.o", Version: "1.1.0", Tools: []string{"o-two"}})
	testutil.Eventually(t, "the edit of o.fake loaded", func() bool { return slices.Equal(toolNames(env, "org.test.o"), []string{"o-two"}) })
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
	if a, ok := env.d.Adapter("org.test.x"); !ok || a.Source != filepath.Join(inner, "x.fake") || a.Shadowed != "" {
		t.Errorf("org.test.x is %+v, want served from extra/x.fake", a)
	}
	if err := os.RemoveAll(inner); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "extra's providers gone with it", func() bool {
		return len(toolNames(env, "org.test.x")) == 0 && len(toolNames(env, "org.test.y")) == 0 && len(toolNames(env, "org.test.z")) == 0
	})
	if got := toolNames(env, "org.test.o"); !slices.Equal(got, []string{"o-two"}) {
		t.Errorf("org.test.o serves %v", got)
	}
	// Made again: read as the root it is.
	writeFake(t, filepath.Join(inner, "x.fake"), fakeSpec{ID: "org.test.x", Version: "1.2.0", Tools: []string{"x-three"}})
	writeFake(t, filepath.Join(inner, "y.fake"), fakeSpec{ID: "org.test.y", Version: "1.2.0", Tools: []string{"y-three"}})
	testutil.Eventually(t, "extra made again and loaded", func() bool {
		return slices.Equal(toolNames(env, "org.test.x"), []string{"x-three"}) && slices.Equal(toolNames(env, "org.test.y"), []string{"y-three"})
	})
	writeFake(t, filepath.Join(inner, "x.fake"), fakeSpec{ID: "org.test.x", Version: "1.3.0", Tools: []string{"x-four"}})
	testutil.Eventually(t, "an edit of the new extra/x.fake loaded", func() bool {
		return slices.Equal(toolNames(env, "org.test.x"), []string{"x-four"})
	})
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
}

// TestRootLinkedIntoAnotherFollowsDisk: a plugin folder of the list that
// is a symlink to a provider folder of another (plugins: [/srv/aios,
// /opt/extra], /opt/extra -> /srv/aios/pkg). The folder is watched once,
// under one of its names, so the other name's copy of its files was not
// reloaded and served its start-up code once the file was deleted.
func TestRootLinkedIntoAnotherFollowsDisk(t *testing.T) {
	base := t.TempDir()
	srv, extra := filepath.Join(base, "srv"), filepath.Join(base, "extra")
	writeFake(t, filepath.Join(srv, "pkg", "tool.fake"), fakeSpec{ID: "org.test.pkg", Version: "1.0.0", Tools: []string{"pkg-one"}})
	if err := os.Symlink(filepath.Join(srv, "pkg"), extra); err != nil {
		t.Fatal(err)
	}
	for _, roots := range [][]string{{srv, extra}, {extra, srv}} {
		writeFake(t, filepath.Join(srv, "pkg", "tool.fake"), fakeSpec{ID: "org.test.pkg", Version: "1.0.0", Tools: []string{"pkg-one"}})
		env := newEnvRoots(t, roots, "debounce: 10ms\n")
		if got := env.load.open(); !slices.Equal(got, []string{"org.test.pkg@1.0.0", "org.test.pkg@1.0.0"}) {
			t.Fatalf("roots %v: open %v; errors %v", roots, got, env.d.Errors())
		}
		writeFake(t, filepath.Join(srv, "pkg", "tool.fake"), fakeSpec{ID: "org.test.pkg", Version: "1.1.0", Tools: []string{"pkg-two"}})
		testutil.Eventually(t, "both names of pkg/tool.fake loaded again", func() bool {
			return slices.Equal(env.load.open(), []string{"org.test.pkg@1.1.0", "org.test.pkg@1.1.0"})
		})
		if err := os.Remove(filepath.Join(srv, "pkg", "tool.fake")); err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, "pkg's provider gone under both names", func() bool {
			return len(toolNames(env, "org.test.pkg")) == 0 && len(env.load.open()) == 0
		})
		_ = env.d.Close()
	}
}
