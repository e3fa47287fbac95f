package discovery

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/native"
)

// An Untrusted plugin file edits its provider id in place to the id of a
// System provider registered outside discovery (a builtin: hostsetup.go
// AddProvider). The id change is refused like a new file naming that id
// ("already registered"); a probe found the swap replaced the builtin, its
// tools served at Untrusted.
func TestIDChangeCannotTakeOverBuiltin(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", nil)
	ctx := context.Background()
	b := native.New(abi.ProviderInfo{ID: "org.builtin.sys"})
	b.MustRegister(abi.ToolDef{Name: "secret", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "builtin", nil })
	if err := env.h.AddProvider(ctx, b, host.ProviderMeta{Source: "builtin", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(env.dir, "plug.fake")
	writeFake(t, f, fakeSpec{ID: "org.test.plug", Version: "1.0.0", Tools: []string{"plug"}})
	testutil.Eventually(t, "loaded", func() bool { _, err := env.call("plug", 1); return err == nil })

	writeFake(t, f, fakeSpec{ID: "org.builtin.sys", Version: "1.0.0", Tools: []string{"secret"}})
	testutil.Eventually(t, "reconciled", func() bool {
		return env.h.Registry().Provider("org.test.plug") == nil || len(env.d.Errors()) > 0
	})
	time.Sleep(100 * time.Millisecond)
	rec := env.h.Registry().Provider("org.builtin.sys")
	e, err := env.h.Registry().Resolve("secret", "")
	if rec == nil || rec.Trust != abi.System || err != nil || e.Provider.Trust != abi.System {
		t.Fatalf("the System builtin was replaced by the plugin file: provider %+v trust %v; secret served by %v (err %v); errors %v",
			rec != nil, rec.Trust, e.Provider.Source, err, env.d.Errors())
	}
}

// A file's provider id is edited in place to the id another file also
// describes (and this file wins the id: its name sorts first). The new
// id is already served, so resolveDrop takes the ReplaceProvider branch
// with the old id still registered; the file's tools clash with its own
// previous registration and the edit is refused. The code this replaced
// (conflictsWith(err, old.id): take the old id down, then register)
// handled this.
func TestIDChangeToClaimedID(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", nil)
	a := filepath.Join(env.dir, "a.fake")
	writeFake(t, a, fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"t1"}})
	writeFake(t, filepath.Join(env.dir, "b.fake"), fakeSpec{ID: "org.test.y", Version: "1.0.0", Tools: []string{"t2"}})
	testutil.Eventually(t, "loaded", func() bool {
		_, e1 := env.call("t1", 1)
		_, e2 := env.call("t2", 1)
		return e1 == nil && e2 == nil
	})
	writeFake(t, a, fakeSpec{ID: "org.test.y", Version: "1.0.0", Tools: []string{"t1"}})
	testutil.Eventually(t, "reconciled", func() bool {
		return len(env.d.Errors()) > 0 || activeSource(env.d, "org.test.y") == a
	})
	if errs := env.d.Errors(); len(errs) > 0 || activeSource(env.d, "org.test.y") != a || env.h.Registry().Provider("org.test.x") != nil {
		t.Fatalf("id edit refused: errors %v; org.test.y served from %q; org.test.x registered %v",
			errs, activeSource(env.d, "org.test.y"), env.h.Registry().Provider("org.test.x") != nil)
	}
}

// Two files describe org.test.x at one version (a.fake serves: its name
// sorts first; b.fake is shadowed). a.fake's id is edited to org.test.y, keeping its
// tool: org.test.x should pass to b.fake and org.test.y serve t1. Since
// best(old id) != nil, apply calls plain resolve(new id), whose
// AddProvider clashes with a.fake's own previous registration, and the
// edit is refused.
func TestIDChangeWithSecondClaimant(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", nil)
	a := filepath.Join(env.dir, "a.fake")
	writeFake(t, a, fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"t1"}})
	writeFake(t, filepath.Join(env.dir, "b.fake"), fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"t2"}})
	testutil.Eventually(t, "loaded", func() bool {
		_, e1 := env.call("t1", 1)
		return e1 == nil && len(env.load.open()) == 2
	})
	writeFake(t, a, fakeSpec{ID: "org.test.y", Version: "1.0.0", Tools: []string{"t1"}})
	testutil.Eventually(t, "reconciled", func() bool {
		return len(env.d.Errors()) > 0 || activeSource(env.d, "org.test.y") == a
	})
	if errs := env.d.Errors(); len(errs) > 0 || activeSource(env.d, "org.test.y") != a {
		t.Fatalf("id edit refused: errors %v; org.test.y served from %q", errs, activeSource(env.d, "org.test.y"))
	}
}
